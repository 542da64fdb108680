import { processOnce } from '@relay/bus';
import type { SessionActivityStore } from '../domain/ports.ts';
import type { SessionActivity } from '../domain/session-activity.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** The session-activity projection in PostgreSQL, each update in one transaction with its processed message id. */
export class PrismaSessionActivityStore implements SessionActivityStore {
  readonly #prisma: PrismaClient;
  readonly #consumer: string;

  /** `consumer` is the durable whose processed message ids this store records. */
  constructor(prisma: PrismaClient, consumer: string) {
    this.#prisma = prisma;
    this.#consumer = consumer;
  }

  updateOnce(
    messageId: string,
    sessionId: string,
    update: (current: SessionActivity | undefined) => SessionActivity | undefined,
  ): Promise<boolean> {
    return this.#prisma.$transaction(async (tx) => {
      if (!(await processOnce(tx, this.#consumer, messageId))) return false;
      // A row that does not exist yet cannot be locked with FOR UPDATE: two replicas applying the first two events
      // of one session would both read "none". A transaction-scoped lock on the id serialises them (and is released
      // with the transaction's own connection, unlike a session-level advisory lock through the pool).
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`session_activity:${sessionId}`}, 0))`;
      const row = await tx.sessionActivity.findUnique({ where: { sessionId } });
      const next = update(row ?? undefined);
      if (next !== undefined) await tx.sessionActivity.upsert({ where: { sessionId }, create: next, update: next });
      return true;
    });
  }
}
