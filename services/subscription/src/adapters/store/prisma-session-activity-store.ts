import { processEachOnce } from '@relay/bus';
import type { SessionActivityStore, SessionActivityUpdate } from '../../app/ports.ts';
import { runsKey } from '../../domain/project-session-event.ts';
import type { SessionActivity } from '../../domain/session-activity.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { runsFromJson, runsToJson } from './watch-codec.ts';

type Row = Awaited<ReturnType<PrismaClient['sessionActivity']['findFirstOrThrow']>>;

export function toSessionActivity(row: Row): SessionActivity {
  return { ...row, runs: runsFromJson(row.runs) };
}

/**
 * The session-activity projection in PostgreSQL, a batch of updates in one transaction with their processed message
 * ids and a fixed number of statements. When what runs in a session changes (runsKey), the watchers whose
 * subscriptions here watch it become due, so stalled, all_idle and the heartbeat are computed again from the new runs.
 */
export class PrismaSessionActivityStore implements SessionActivityStore {
  readonly #prisma: PrismaClient;
  readonly #consumer: string;
  readonly #onWatchersDue: () => void;

  /**
   * `consumer` is the durable whose processed message ids this store records; `onWatchersDue` is called after an
   * update that made watchers due has committed (the planner evaluates them now).
   */
  constructor(prisma: PrismaClient, consumer: string, options: { onWatchersDue?: () => void } = {}) {
    this.#prisma = prisma;
    this.#consumer = consumer;
    this.#onWatchersDue = options.onWatchersDue ?? (() => undefined);
  }

  async updateEachOnce(updates: readonly SessionActivityUpdate[]): Promise<Set<string>> {
    if (updates.length === 0) return new Set();
    let watchersDue = false;
    const applied = await this.#prisma.$transaction(async (tx) => {
      const fresh = await processEachOnce(tx, this.#consumer, updates.map((update) => update.messageId));
      const taken = updates.filter((update) => fresh.delete(update.messageId));
      if (taken.length === 0) return new Set<string>();
      // A row that does not exist yet cannot be locked with FOR UPDATE: two replicas applying the first two events
      // of one session would both read "none". A transaction-scoped lock on each id serialises them (released with
      // the transaction's own connection, unlike a session-level advisory lock through the pool), taken in one order
      // so that two batches never wait on each other in a circle.
      const sessionIds = [...new Set(taken.map((update) => update.sessionId))].sort();
      await tx.$queryRaw`SELECT count(pg_advisory_xact_lock(hashtextextended('session_activity:' || k, 0)))::int AS locked FROM unnest(${sessionIds}::text[]) AS k`;
      const rows = new Map((await tx.sessionActivity.findMany({ where: { sessionId: { in: sessionIds } } })).map((row) => [row.sessionId, toSessionActivity(row)]));
      const saved = new Map<string, SessionActivity>();
      // Per session, the earliest instant its runs changed: its watchers are due by then.
      const wake = new Map<string, { userId: string; at: Date }>();
      for (const { sessionId, update } of taken) {
        const current = rows.get(sessionId);
        const next = update(current);
        if (next === undefined) continue;
        rows.set(sessionId, next);
        saved.set(sessionId, next);
        const changed = current === undefined || runsKey(next.runs) !== runsKey(current.runs) || next.archivedAt?.getTime() !== current.archivedAt?.getTime();
        const due = wake.get(sessionId);
        if (changed && (due === undefined || next.lastEventAt.getTime() < due.at.getTime())) wake.set(sessionId, { userId: next.userId, at: next.lastEventAt });
      }
      await this.#save(tx, [...saved.values()]);
      watchersDue = (await this.#wakeWatchersOf(tx, wake)) > 0;
      return new Set(taken.map((update) => update.messageId));
    });
    if (watchersDue) this.#onWatchersDue();
    return applied;
  }

  /** Writes the rows in one statement. */
  async #save(tx: Prisma.TransactionClient, rows: readonly SessionActivity[]): Promise<void> {
    if (rows.length === 0) return;
    const records = rows.map((row) => ({
      session_id: row.sessionId,
      user_id: row.userId,
      title: row.title,
      state: row.state,
      last_event_at: row.lastEventAt.toISOString(),
      last_event_id: row.lastEventId,
      runs: runsToJson(row.runs),
      archived_at: row.archivedAt?.toISOString() ?? null,
    }));
    await tx.$executeRaw`INSERT INTO session_activity (session_id, user_id, title, state, last_event_at, last_event_id, runs, archived_at)
      SELECT r.session_id, r.user_id, r.title, r.state::session_activity_state, r.last_event_at, r.last_event_id, r.runs, r.archived_at
        FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
          AS r(session_id text, user_id text, title text, state text, last_event_at timestamp(3), last_event_id text, runs jsonb, archived_at timestamp(3))
      ON CONFLICT (session_id) DO UPDATE SET user_id = EXCLUDED.user_id, title = EXCLUDED.title, state = EXCLUDED.state,
        last_event_at = EXCLUDED.last_event_at, last_event_id = EXCLUDED.last_event_id, runs = EXCLUDED.runs, archived_at = EXCLUDED.archived_at`;
  }

  /**
   * Makes due (at the session's instant at the latest) every watcher with an active subscription here that watches
   * one of the sessions, in one statement; answers how many watchers it touched.
   */
  async #wakeWatchersOf(tx: Prisma.TransactionClient, sessions: ReadonlyMap<string, { userId: string; at: Date }>): Promise<number> {
    if (sessions.size === 0) return 0;
    const records = [...sessions].map(([sessionId, { userId, at }]) => ({ session_id: sessionId, user_id: userId, at: at.toISOString() }));
    return tx.$executeRaw`UPDATE watchers AS w SET next_evaluation_at = LEAST(COALESCE(w.next_evaluation_at, x.at), x.at)
      FROM (SELECT s.watcher_session_id, min(r.at) AS at
              FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS r(session_id text, user_id text, at timestamp(3))
              JOIN subscriptions s ON s.user_id = r.user_id AND s.ended_at IS NULL AND s.relay = '' AND s.watcher_session_id <> r.session_id
               AND ((s.scope = 'all' AND NOT (s.exclude ? r.session_id)) OR s.sessions @> jsonb_build_array(jsonb_build_object('id', r.session_id)))
             GROUP BY s.watcher_session_id) AS x
     WHERE w.session_id = x.watcher_session_id`;
  }
}
