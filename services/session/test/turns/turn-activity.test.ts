import { describe, expect, it } from 'vitest';
import { announcesActivity, TURN_ACTIVITY_ANNOUNCE_MS } from '../../src/domain/turns/turn-activity.ts';

const start = new Date('2026-11-30T10:00:00.000Z');
const at = (ms: number) => new Date(start.getTime() + ms);

/** The instants a turn announces, given when it showed activity, as the runner applies the rule. */
function announced(activity: number[]): number[] {
  let last = start;
  const out: number[] = [];
  for (const ms of activity) {
    if (!announcesActivity(last, at(ms))) continue;
    last = at(ms);
    out.push(ms);
  }
  return out;
}

describe('turn activity throttle (relay.session.v1.turn_activity)', () => {
  it('announces nothing within the first minute after the turn started: its start is its first sign of life', () => {
    expect(announcesActivity(start, at(TURN_ACTIVITY_ANNOUNCE_MS - 1))).toBe(false);
    expect(announcesActivity(start, at(TURN_ACTIVITY_ANNOUNCE_MS))).toBe(true);
  });

  it('announces at most once a minute of relay time, however often the turn works', () => {
    const everySecond = Array.from({ length: 200 }, (_, i) => (i + 1) * 1000);
    expect(announced(everySecond)).toEqual([60_000, 120_000, 180_000]);
  });

  it('announces the first activity after a silence at once, and counts the next minute from it', () => {
    expect(announced([10_000, 130_000, 150_000, 190_000, 200_000])).toEqual([130_000, 190_000]);
  });
});
