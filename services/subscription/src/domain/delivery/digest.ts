/**
 * digest_minutes and the heartbeat's schedule. A digest gathers a subscription's non-urgent events
 * into one message every N minutes; a heartbeat is not made inside the subscription's quiet hours.
 */
import type { DeliverySubscription, QuietHours } from './model.ts';
import { quietWindowAt } from './quiet-hours.ts';

const MINUTE_MS = 60_000;

/**
 * When the subscription's next digest may go: N minutes after its last delivered message, or after
 * it was made when none was delivered yet. Null for a subscription without digest_minutes.
 */
export function nextDigestAt(subscription: DeliverySubscription): Date | null {
  if (subscription.digestMinutes === null) return null;
  const since = subscription.lastDeliveredAt ?? subscription.createdAt;
  return new Date(since.getTime() + subscription.digestMinutes * MINUTE_MS);
}

/** How many quiet windows the heartbeat's grid may skip in a row before it counts as never made. */
const MAX_SKIPPED_WINDOWS = 400;

/**
 * The next heartbeat after `lastAt` on the subscription's grid (every `heartbeatMinutes`): grid
 * times inside quiet hours are skipped, not moved. Null when every grid time falls inside them
 * (a daily heartbeat at a time of day the window covers).
 */
export function nextHeartbeatAt(lastAt: Date, heartbeatMinutes: number, quietHours: QuietHours | null): Date | null {
  const stepMs = heartbeatMinutes * MINUTE_MS;
  if (!(stepMs > 0)) throw new Error(`heartbeatMinutes must be positive, got ${heartbeatMinutes}`);
  const grid = (atLeastMs: number) => lastAt.getTime() + Math.max(1, Math.ceil((atLeastMs - lastAt.getTime()) / stepMs)) * stepMs;
  let due = grid(lastAt.getTime());
  for (let skipped = 0; skipped < MAX_SKIPPED_WINDOWS; skipped += 1) {
    const window = quietHours && quietWindowAt(new Date(due), quietHours);
    if (!window) return new Date(due);
    due = grid(window.end.getTime());
  }
  return null;
}
