import { describe, expect, it } from 'vitest';
import { nextDigestAt, nextHeartbeatAt } from './digest.ts';
import type { DeliverySubscription, QuietHours } from './model.ts';

const at = (iso: string) => new Date(iso);

function subscription(overrides: Partial<DeliverySubscription>): DeliverySubscription {
  return { id: 'sub_ab12cd34ef', createdAt: at('2026-06-10T08:00:00Z'), once: false, digestMinutes: 30, quietHours: null, lastDeliveredAt: null, ...overrides };
}

describe('nextDigestAt', () => {
  it('is N minutes after the subscription was made before any delivery', () => {
    expect(nextDigestAt(subscription({}))?.toISOString()).toBe('2026-06-10T08:30:00.000Z');
  });

  it('is N minutes after the last delivered message afterwards', () => {
    expect(nextDigestAt(subscription({ lastDeliveredAt: at('2026-06-10T09:12:30Z') }))?.toISOString()).toBe('2026-06-10T09:42:30.000Z');
  });

  it('is null without digest_minutes', () => {
    expect(nextDigestAt(subscription({ digestMinutes: null }))).toBeNull();
  });
});

describe('nextHeartbeatAt', () => {
  const quiet: QuietHours = { from: '23:00', to: '06:00', tz: 'UTC' };

  it.each<[string, number, QuietHours | null, string, string]>([
    ['2026-06-10T20:00:00Z', 60, null, '2026-06-10T21:00:00.000Z', 'no quiet hours: the next grid time'],
    ['2026-06-10T21:00:00Z', 60, quiet, '2026-06-10T22:00:00.000Z', 'before the window'],
    ['2026-06-10T22:00:00Z', 60, quiet, '2026-06-11T06:00:00.000Z', 'grid times inside are skipped; the one at the end goes'],
    ['2026-06-10T22:20:00Z', 60, quiet, '2026-06-11T06:20:00.000Z', 'the grid keeps its minutes'],
    ['2026-06-10T22:50:00Z', 45, quiet, '2026-06-11T06:20:00.000Z', 'the first grid time after the end (22:50 + 10 × 45 min)'],
    ['2026-06-10T12:00:00Z', 24 * 60, quiet, '2026-06-11T12:00:00.000Z', 'a daily heartbeat outside the window'],
  ])('after %s every %i min with %j → %s (%s)', (last, minutes, quietHours, expected) => {
    expect(nextHeartbeatAt(at(last), minutes, quietHours)?.toISOString()).toBe(expected);
  });

  it('is null when every grid time lies in the window', () => {
    expect(nextHeartbeatAt(at('2026-06-10T23:30:00Z'), 24 * 60, quiet)).toBeNull();
  });

  it('refuses a non-positive interval', () => {
    expect(() => nextHeartbeatAt(at('2026-06-10T20:00:00Z'), 0, null)).toThrow();
  });
});
