import { processEachOnce } from '@relay/bus';
import type pg from 'pg';
import type { SessionActivityStore, SessionActivityTransaction } from '../../app/ports.ts';
import type { SessionActivity } from '../../domain/session-activity.ts';
import { pgTransaction, sql, SqlRunner } from './sql-statement.ts';
import { SESSION_ACTIVITY_COLUMNS, toSessionActivity, type SessionActivityRow } from './sql-watch-statements.ts';
import { runsToJson } from './watch-codec.ts';

/**
 * The session-activity projection in PostgreSQL: a batch of updates in one transaction with their processed message
 * ids and a fixed number of statements, in plain SQL on a connection of the pool Prisma's client uses (docs/adr/0025).
 */
export class PgSessionActivityStore implements SessionActivityStore {
  readonly #pool: pg.Pool;
  readonly #consumer: string;
  readonly #onWatchersDue: () => void;

  /**
   * `consumer` is the durable whose processed message ids this store records; `onWatchersDue` is called after a
   * transaction that made watchers due has committed (the planner evaluates them now).
   */
  constructor(pool: pg.Pool, consumer: string, options: { onWatchersDue?: () => void } = {}) {
    this.#pool = pool;
    this.#consumer = consumer;
    this.#onWatchersDue = options.onWatchersDue ?? (() => undefined);
  }

  async transaction<T>(work: (tx: SessionActivityTransaction) => Promise<T>): Promise<T> {
    let watchersDue = false;
    const result = await pgTransaction(this.#pool, (tx) => {
      const run = new SqlRunner(tx);
      return work({
        processEachOnce: (messageIds) => processEachOnce(tx, this.#consumer, messageIds),
        lockSessions: (sessionIds) => lockSessions(run, sessionIds),
        saveSessions: (rows) => saveSessions(run, rows),
        makeWatchersDue: async (sessions) => {
          const touched = await makeWatchersDue(run, sessions);
          watchersDue ||= touched > 0;
          return touched;
        },
      });
    });
    if (watchersDue) this.#onWatchersDue();
    return result;
  }
}

async function lockSessions(run: SqlRunner, sessionIds: readonly string[]): Promise<Map<string, SessionActivity>> {
  // A row that does not exist yet cannot be locked with FOR UPDATE: two replicas applying the first two events
  // of one session would both read "none". A transaction-scoped lock on each id serialises them (released with
  // the transaction's own connection, unlike a session-level advisory lock through the pool), taken in the order given.
  // The rows are read by a statement of their own, whose snapshot comes after the locks.
  await run.rows(
    sql`SELECT count(pg_advisory_xact_lock(hashtextextended('session_activity:' || k, 0)))::int AS locked FROM unnest(${sessionIds}::text[]) AS k`,
  );
  const rows = await run.rows<SessionActivityRow>(sql`SELECT ${SESSION_ACTIVITY_COLUMNS} FROM session_activity WHERE session_id = ANY(${sessionIds}::text[])`);
  return new Map(rows.map((row) => [row.sessionId, toSessionActivity(row)]));
}

/** Writes the rows in one statement. */
async function saveSessions(run: SqlRunner, rows: readonly SessionActivity[]): Promise<void> {
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
  await run.execute(sql`INSERT INTO session_activity (session_id, user_id, title, state, last_event_at, last_event_id, runs, archived_at)
    SELECT r.session_id, r.user_id, r.title, r.state::session_activity_state, r.last_event_at, r.last_event_id, r.runs, r.archived_at
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
        AS r(session_id text, user_id text, title text, state text, last_event_at timestamp(3), last_event_id text, runs jsonb, archived_at timestamp(3))
    ON CONFLICT (session_id) DO UPDATE SET user_id = EXCLUDED.user_id, title = EXCLUDED.title, state = EXCLUDED.state,
      last_event_at = EXCLUDED.last_event_at, last_event_id = EXCLUDED.last_event_id, runs = EXCLUDED.runs, archived_at = EXCLUDED.archived_at`);
}

/** SessionActivityTransaction.makeWatchersDue, in one statement. */
async function makeWatchersDue(run: SqlRunner, sessions: ReadonlyMap<string, { userId: string; at: Date }>): Promise<number> {
  if (sessions.size === 0) return 0;
  const records = [...sessions].map(([sessionId, { userId, at }]) => ({ session_id: sessionId, user_id: userId, at: at.toISOString() }));
  return run.execute(sql`UPDATE watchers AS w SET next_evaluation_at = LEAST(COALESCE(w.next_evaluation_at, x.at), x.at)
    FROM (SELECT s.watcher_session_id, min(r.at) AS at
            FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS r(session_id text, user_id text, at timestamp(3))
            JOIN subscriptions s ON s.user_id = r.user_id AND s.ended_at IS NULL AND s.relay = '' AND s.watcher_session_id <> r.session_id
             AND ((s.scope = 'all' AND NOT (s.exclude ? r.session_id)) OR s.sessions @> jsonb_build_array(jsonb_build_object('id', r.session_id)))
           GROUP BY s.watcher_session_id) AS x
   WHERE w.session_id = x.watcher_session_id`);
}
