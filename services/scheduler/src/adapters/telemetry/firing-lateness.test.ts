import { describe, expect, it } from 'vitest';
import { latenessSeconds } from './firing-lateness.ts';

describe('latenessSeconds', () => {
  it('is the firing instant minus the due instant, in seconds', () => {
    expect(latenessSeconds({ dueAt: new Date('2026-11-30T09:00:00.000Z'), firedAt: new Date('2026-11-30T09:00:02.500Z') })).toBe(2.5);
  });

  it('is 0 for a firing on time', () => {
    expect(latenessSeconds({ dueAt: new Date('2026-11-30T09:00:00Z'), firedAt: new Date('2026-11-30T09:00:00Z') })).toBe(0);
  });
});
