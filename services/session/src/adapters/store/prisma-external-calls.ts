import { enqueue, enqueueAll, outgoing } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ExternalCallRef, ExternalCallStore } from '../../app/external/external-calls.ts';

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

  async renew(calls: readonly ExternalCallRef[], expiresAt: Date, now: Date): Promise<ExternalCallRef[]> {
    const sessionIds = calls.map((call) => call.sessionId);
    const callIds = calls.map((call) => call.callId);
    return this.db.$transaction(async (tx) => {
      // Only holds still in force: one released, or lapsed (a hold drops them), is not set again here.
      const renewed = await tx.$queryRaw<(ExternalCallRef & { userId: string })[]>`
        UPDATE external_calls c SET expires_at = ${expiresAt}
          FROM unnest(${sessionIds}::text[], ${callIds}::text[]) AS r(session_id, call_id), sessions s
         WHERE c.session_id = r.session_id AND c.call_id = r.call_id AND c.expires_at > ${now} AND s.id = c.session_id
        RETURNING c.session_id AS "sessionId", c.call_id AS "callId", s.user_id AS "userId"`;
      await enqueueAll(
        tx,
        renewed.map(({ sessionId, callId, userId }) => {
          const eventId = `external_call_held:${sessionId}:${callId}:${expiresAt.getTime()}`;
          return outgoing(SessionEvents.EXTERNAL_CALL_HELD, { eventId, occurredAt: now, sessionId, userId, callId, heldUntil: expiresAt }, { id: eventId });
        }),
      );
      const held = new Set(renewed.map((call) => `${call.sessionId}\n${call.callId}`));
      return calls.filter((call) => !held.has(`${call.sessionId}\n${call.callId}`));
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
