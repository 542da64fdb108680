import { processOnce } from '@relay/bus';
import type { SessionActivityStore } from '../domain/ports.ts';
import { runsKey } from '../domain/project-session-event.ts';
import type { SessionActivity } from '../domain/session-activity.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { runsFromJson, runsToJson } from './watch-codec.ts';

type Row = Awaited<ReturnType<PrismaClient['sessionActivity']['findFirstOrThrow']>>;

export function toSessionActivity(row: Row): SessionActivity {
  return { ...row, runs: runsFromJson(row.runs) };
}

/**
 * The session-activity projection in PostgreSQL, each update in one transaction with its processed message id.
 * When what runs in a session changes (runsKey), the watchers whose subscriptions here watch it become due, so
 * stalled, all_idle and the heartbeat are computed again from the new runs.
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

  async updateOnce(
    messageId: string,
    sessionId: string,
    update: (current: SessionActivity | undefined) => SessionActivity | undefined,
  ): Promise<boolean> {
    let watchersDue = false;
    const applied = await this.#prisma.$transaction(async (tx) => {
      if (!(await processOnce(tx, this.#consumer, messageId))) return false;
      // A row that does not exist yet cannot be locked with FOR UPDATE: two replicas applying the first two events
      // of one session would both read "none". A transaction-scoped lock on the id serialises them (and is released
      // with the transaction's own connection, unlike a session-level advisory lock through the pool).
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`session_activity:${sessionId}`}, 0))`;
      const row = await tx.sessionActivity.findUnique({ where: { sessionId } });
      const current = row === null ? undefined : toSessionActivity(row);
      const next = update(current);
      if (next === undefined) return true;
      const data = { ...next, runs: runsToJson(next.runs) as Prisma.InputJsonValue };
      await tx.sessionActivity.upsert({ where: { sessionId }, create: data, update: data });
      const changed = current === undefined || runsKey(next.runs) !== runsKey(current.runs) || next.archivedAt?.getTime() !== current.archivedAt?.getTime();
      if (changed) watchersDue = (await this.#wakeWatchersOf(tx, next.userId, sessionId, next.lastEventAt)) > 0;
      return true;
    });
    if (watchersDue) this.#onWatchersDue();
    return applied;
  }

  /** Makes due (at `at` at the latest) every watcher with an active subscription here that watches the session. */
  async #wakeWatchersOf(tx: Prisma.TransactionClient, userId: string, sessionId: string, at: Date): Promise<number> {
    return tx.$executeRaw`UPDATE watchers SET next_evaluation_at = LEAST(COALESCE(next_evaluation_at, ${at.toISOString()}::timestamp(3)), ${at.toISOString()}::timestamp(3))
      WHERE session_id IN (
        SELECT watcher_session_id FROM subscriptions
         WHERE user_id = ${userId} AND ended_at IS NULL AND relay = '' AND watcher_session_id <> ${sessionId}
           AND ((scope = 'all' AND NOT (exclude ? ${sessionId})) OR sessions @> jsonb_build_array(jsonb_build_object('id', ${sessionId}::text))))`;
  }
}
