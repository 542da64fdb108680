import { enqueue, enqueueAll, outgoing } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ExternalCallRef, ExternalCallStore } from '../../app/external/external-calls.ts';
import { announcedUntil } from '../../domain/external/external-calls.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * External sessions' calls in flight, one row per call in external_calls. Given the session's user, a hold announces
 * relay.session.v1.external_call_held and a release that leaves no call held external_call_released, in the same
 * transaction (the subscription service counts the call as the session's running turn). What a hold announces reaches
 * past its lease (announcedUntil, kept in announced_until), and a renewal announces the call again only once its lease
 * reaches past that: most renewals write no event (docs/adr/0050).
 */
export class PrismaExternalCalls implements ExternalCallStore {
  constructor(private readonly db: PrismaClient) {}

  async hold(sessionId: string, callId: string, expiresAt: Date, now: Date, userId?: string): Promise<void> {
    await this.db.$transaction(async (tx: Db) => {
      await tx.externalCall.deleteMany({ where: { sessionId, expiresAt: { lte: now } } });
      const announced = userId === undefined ? {} : { announcedUntil: announcedUntil(expiresAt) };
      await tx.externalCall.upsert({
        where: { sessionId_callId: { sessionId, callId } },
        create: { sessionId, callId, expiresAt, ...announced },
        update: { expiresAt, ...announced },
      });
      if (userId === undefined) return;
      await enqueue(tx, heldEvent({ sessionId, callId, userId }, announcedUntil(expiresAt), now));
    });
  }

  async renew(calls: readonly ExternalCallRef[], expiresAt: Date, now: Date): Promise<ExternalCallRef[]> {
    const sessionIds = calls.map((call) => call.sessionId);
    const callIds = calls.map((call) => call.callId);
    const heldUntil = announcedUntil(expiresAt);
    return this.db.$transaction(async (tx) => {
      // Only holds still in force: one released, or lapsed (a hold drops them), is not set again here. A call is
      // announced again only when its new lease reaches past what was announced (locked, so two renewals of one call
      // cannot both announce it).
      const renewed = await tx.$queryRaw<(ExternalCallRef & { userId: string; announce: boolean })[]>`
        WITH held AS (
          SELECT c.session_id, c.call_id, s.user_id, (c.announced_until IS NULL OR c.announced_until < ${expiresAt}) AS announce
            FROM external_calls c
            JOIN unnest(${sessionIds}::text[], ${callIds}::text[]) AS r(session_id, call_id) ON c.session_id = r.session_id AND c.call_id = r.call_id
            JOIN sessions s ON s.id = c.session_id
           WHERE c.expires_at > ${now}
             FOR UPDATE OF c)
        UPDATE external_calls c
           SET expires_at = ${expiresAt}, announced_until = CASE WHEN held.announce THEN ${heldUntil} ELSE c.announced_until END
          FROM held
         WHERE c.session_id = held.session_id AND c.call_id = held.call_id
        RETURNING c.session_id AS "sessionId", c.call_id AS "callId", held.user_id AS "userId", held.announce AS "announce"`;
      await enqueueAll(
        tx,
        renewed.filter((call) => call.announce).map((call) => heldEvent(call, heldUntil, now)),
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

/** external_call_held for `call`, held until `heldUntil`: once per call and announced end. */
function heldEvent(call: ExternalCallRef & { userId: string }, heldUntil: Date, now: Date) {
  const { sessionId, callId, userId } = call;
  const eventId = `external_call_held:${sessionId}:${callId}:${heldUntil.getTime()}`;
  return outgoing(SessionEvents.EXTERNAL_CALL_HELD, { eventId, occurredAt: now, sessionId, userId, callId, heldUntil }, { id: eventId });
}
