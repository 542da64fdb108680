import { enqueue, outgoing } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ExternalCallStore } from '../../app/external/external-calls.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * External sessions' calls in flight, one row per call in external_calls. Given the session's user, a hold announces
 * relay.session.v1.external_call_held and a release that leaves no call held external_call_released, in the same
 * transaction (the subscription service counts the call as the session's running turn).
 */
export class PrismaExternalCalls implements ExternalCallStore {
  constructor(private readonly db: PrismaClient) {}

  async hold(sessionId: string, callId: string, expiresAt: Date, now: Date, userId?: string): Promise<void> {
    await this.db.$transaction(async (tx: Db) => {
      await tx.externalCall.deleteMany({ where: { sessionId, expiresAt: { lte: now } } });
      await tx.externalCall.upsert({
        where: { sessionId_callId: { sessionId, callId } },
        create: { sessionId, callId, expiresAt },
        update: { expiresAt },
      });
      if (userId === undefined) return;
      const eventId = `external_call_held:${sessionId}:${callId}:${expiresAt.getTime()}`;
      await enqueue(
        tx,
        outgoing(SessionEvents.EXTERNAL_CALL_HELD, { eventId, occurredAt: now, sessionId, userId, callId, heldUntil: expiresAt }, { id: eventId }),
      );
    });
  }

  async release(sessionId: string, callId: string, now?: Date, userId?: string): Promise<void> {
    await this.db.$transaction(async (tx: Db) => {
      const { count } = await tx.externalCall.deleteMany({ where: { sessionId, callId } });
      if (count === 0 || userId === undefined || now === undefined) return;
      // Another call of the session still held keeps its turn running.
      if ((await tx.externalCall.count({ where: { sessionId, expiresAt: { gt: now } } })) > 0) return;
      const eventId = `external_call_released:${sessionId}:${callId}`;
      await enqueue(tx, outgoing(SessionEvents.EXTERNAL_CALL_RELEASED, { eventId, occurredAt: now, sessionId, userId, callId }, { id: eventId }));
    });
  }

  async latestExpiries(sessionIds: readonly string[]): Promise<Map<string, Date>> {
    const rows = await this.db.externalCall.groupBy({
      by: ['sessionId'],
      where: { sessionId: { in: [...sessionIds] } },
      _max: { expiresAt: true },
    });
    return new Map(rows.flatMap((row) => (row._max.expiresAt === null ? [] : [[row.sessionId, row._max.expiresAt] as const])));
  }
}
