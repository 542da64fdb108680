import { describe, expect, it } from 'vitest';
import { capRelease, recordWakeUp, wakeUpsInWindow } from './cap.ts';
import { DEFAULT_DELIVERY_TIMINGS } from './model.ts';

const at = (iso: string) => new Date(iso);
/** `count` wake-ups one minute apart, the first at `firstIso`. */
function everyMinute(firstIso: string, count: number): Date[] {
  return Array.from({ length: count }, (_, index) => new Date(at(firstIso).getTime() + index * 60_000));
}

describe('wakeUpsInWindow', () => {
  it('counts the wake-ups of the rolling hour that ends at the instant, the one an hour before excluded', () => {
    const log = [at('2026-06-10T08:00:00Z'), at('2026-06-10T08:00:01Z'), at('2026-06-10T08:59:59Z'), at('2026-06-10T09:00:00Z')];
    expect(wakeUpsInWindow(log, at('2026-06-10T09:00:00Z'), 3_600_000)).toBe(3);
  });
});

describe('recordWakeUp', () => {
  it('keeps the last 20, oldest first', () => {
    let log: Date[] = [];
    for (const wakeUp of everyMinute('2026-06-10T09:00:00Z', 25)) log = recordWakeUp(log, wakeUp, 20);
    expect(log).toHaveLength(20);
    expect(log[0]).toEqual(at('2026-06-10T09:05:00Z'));
    expect(log[19]).toEqual(at('2026-06-10T09:24:00Z'));
  });
});

describe('capRelease', () => {
  const full = everyMinute('2026-06-10T09:00:00Z', 20); // 09:00 … 09:19

  it('lets a message go while fewer than 20 wake-ups lie in the last hour', () => {
    expect(capRelease(full.slice(1), null, at('2026-06-10T09:30:30Z'), DEFAULT_DELIVERY_TIMINGS)).toEqual({
      sendAt: at('2026-06-10T09:30:30Z'),
      capDigest: false,
      capSlotAt: null,
    });
  });

  it('counts at the time the message would go, not before', () => {
    // 09:00 is an hour old at 10:00, so a message at 10:00 finds 19.
    expect(capRelease(full, null, at('2026-06-10T10:00:00Z'), DEFAULT_DELIVERY_TIMINGS).capDigest).toBe(false);
    expect(capRelease(full, null, at('2026-06-10T09:59:59Z'), DEFAULT_DELIVERY_TIMINGS).capDigest).toBe(true);
  });

  it('holds a blocked message to the first cap slot, T + 10 min', () => {
    expect(capRelease(full, null, at('2026-06-10T09:30:30Z'), DEFAULT_DELIVERY_TIMINGS)).toEqual({
      sendAt: at('2026-06-10T09:40:30Z'),
      capDigest: true,
      capSlotAt: at('2026-06-10T09:40:30Z'),
    });
  });

  it('puts a message blocked before a pending slot into that slot', () => {
    const result = capRelease(full, at('2026-06-10T09:40:30Z'), at('2026-06-10T09:35:30Z'), DEFAULT_DELIVERY_TIMINGS);
    expect(result.sendAt).toEqual(at('2026-06-10T09:40:30Z'));
  });

  it('keeps to the 10-minute grid while the count is still at 20', () => {
    const afterSlot = recordWakeUp(full, at('2026-06-10T09:40:30Z'), 20); // 09:01 … 09:19 and 09:40:30
    const result = capRelease(afterSlot, at('2026-06-10T09:40:30Z'), at('2026-06-10T09:45:30Z'), DEFAULT_DELIVERY_TIMINGS);
    expect(result).toEqual({ sendAt: at('2026-06-10T09:50:30Z'), capDigest: true, capSlotAt: at('2026-06-10T09:50:30Z') });
  });

  it('starts a new series at T + 10 min when the last slot is more than 10 min back', () => {
    const busy = everyMinute('2026-06-10T09:31:00Z', 20); // 09:31 … 09:50
    const result = capRelease(busy, at('2026-06-10T09:40:30Z'), at('2026-06-10T09:55:30Z'), DEFAULT_DELIVERY_TIMINGS);
    expect(result.sendAt).toEqual(at('2026-06-10T10:05:30Z'));
  });

  it('ends the series once the count is below 20 again', () => {
    const log = [...everyMinute('2026-06-10T09:02:00Z', 18), at('2026-06-10T09:40:30Z'), at('2026-06-10T09:50:30Z')];
    const result = capRelease(log, at('2026-06-10T09:50:30Z'), at('2026-06-10T10:05:30Z'), DEFAULT_DELIVERY_TIMINGS);
    expect(result).toEqual({ sendAt: at('2026-06-10T10:05:30Z'), capDigest: false, capSlotAt: at('2026-06-10T09:50:30Z') });
  });
});
