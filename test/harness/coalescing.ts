/**
 * Time-skipping past a watcher's 30-second coalescing window: instead of waiting for it in real time, a test moves
 * the relay's clock (Relay.jumpTo) to the instant the planned message goes, read from the subscription service's own
 * table once the event has reached the watcher and been planned (a positive sign the window is open).
 */
import pg from 'pg';
import type { Relay } from './relay.ts';
import { until } from './until.ts';

/**
 * Once an event the watcher received at `since` (relay clock) or later is there and none waits to be planned, jumps
 * to when the last released one goes (nothing to skip when it went already).
 */
export async function skipCoalescingWindow(relay: Relay, watcherSessionId: string, since: Date): Promise<void> {
  const db = new pg.Client({ connectionString: relay.databaseUrls.subscription });
  await db.connect();
  try {
    const planned = await until(`an event for watcher ${watcherSessionId} planned`, async () => {
      const { rows } = await db.query<{ received: number; waiting: number; deliverAtMs: number | null }>(
        `SELECT count(*) FILTER (WHERE received_at >= $2)::int AS received, count(*) FILTER (WHERE status = 'new')::int AS waiting,
                (max(EXTRACT(EPOCH FROM deliver_at)) FILTER (WHERE status = 'released') * 1000)::float8 AS "deliverAtMs"
           FROM watcher_events WHERE watcher_session_id = $1`,
        [watcherSessionId, since.toISOString()],
      );
      const row = rows[0]!;
      return row.received > 0 && row.waiting === 0 ? { deliverAtMs: row.deliverAtMs } : undefined;
    });
    if (planned.deliverAtMs !== null) await relay.jumpTo(new Date(planned.deliverAtMs));
  } finally {
    await db.end();
  }
}
