/**
 * The hourly cap: a sliding log of the watcher's last 20 wake-ups over a rolling hour. Every message
 * injected into the watcher counts. A non-urgent message blocked at T waits for a cap slot: T + 10
 * min, then every 10 min while anything waits and the count is still at 20. Urgent ones never wait.
 */
import type { DeliveryTimings } from './model.ts';

/** How many of the logged wake-ups lie in the rolling window that ends at `at` (at inclusive). */
export function wakeUpsInWindow(wakeUps: readonly Date[], at: Date, windowMs: number): number {
  const from = at.getTime() - windowMs;
  return wakeUps.filter((wakeUp) => wakeUp.getTime() > from && wakeUp.getTime() <= at.getTime()).length;
}

/** The log after a message was injected at `at`: oldest first, only the last `capWakeUps` kept. */
export function recordWakeUp(wakeUps: readonly Date[], at: Date, capWakeUps: number): Date[] {
  return [...wakeUps, at].sort((a, b) => a.getTime() - b.getTime()).slice(-capWakeUps);
}

/** When a message that would go at `sendAt` goes under the cap, and the cap slot afterwards. */
export type Capped = { sendAt: Date; capDigest: boolean; capSlotAt: Date | null };

/**
 * Applies the cap to a non-urgent message that would go at `sendAt`. A message blocked within
 * one slot length after the previous slot keeps to that slot's 10-minute grid; later ones start a
 * new series at their own T + 10 min.
 */
export function capRelease(wakeUps: readonly Date[], capSlotAt: Date | null, sendAt: Date, timings: DeliveryTimings): Capped {
  if (wakeUpsInWindow(wakeUps, sendAt, timings.capWindowMs) < timings.capWakeUps) {
    return { sendAt, capDigest: false, capSlotAt };
  }
  const at = sendAt.getTime();
  const previous = capSlotAt?.getTime();
  let slot: number;
  if (previous !== undefined && previous >= at) slot = previous;
  else if (previous !== undefined && at < previous + timings.capSlotMs) slot = previous + timings.capSlotMs;
  else slot = at + timings.capSlotMs;
  return { sendAt: new Date(slot), capDigest: true, capSlotAt: new Date(slot) };
}
