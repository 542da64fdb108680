import { describe, expect, it } from 'vitest';
import { untilDue } from '../src/adapters/loops/until-due.ts';

const now = new Date('2026-12-03T05:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe('untilDue', () => {
  it('sleeps until the next is due, within the bounds', () => {
    expect(untilDue(at(4_000), now, 1_000, 30_000)).toBe(4_000);
    expect(untilDue(at(-5_000), now, 1_000, 30_000)).toBe(1_000);
    expect(untilDue(at(60_000), now, 1_000, 30_000)).toBe(30_000);
  });

  it('sleeps the longest pause while nothing is kept', () => {
    expect(untilDue(undefined, now, 1_000, 30_000)).toBe(30_000);
  });
});
