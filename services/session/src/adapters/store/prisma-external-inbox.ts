import { enqueue } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import type { Message } from '../../domain/entities.ts';
import { PENDING_PREVIEWS, pendingNote, type ExternalInbox, type PendingNote } from '../../domain/external/external-inbox.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/** The roles that reach an external conversation from the relay (wake-ups and answers, schedule firings). */
const PENDING_ROLES = ['event', 'schedule'];

/** An external session's inbox in the sessions and messages tables (sessions.external_read_seq is the read marker). */
export class PrismaExternalInbox implements ExternalInbox {
  constructor(private readonly db: Db) {}

  async write(message: Message, eventId: string): Promise<void> {
    const provenance = message.provenance === null ? Prisma.DbNull : (message.provenance as unknown as Prisma.InputJsonValue);
    await this.db.message.create({ data: { ...message, provenance } });
    const session = await this.db.session.update({
      where: { id: message.sessionId },
      data: { messageCount: { increment: 1 }, lastActivityAt: message.createdAt },
      select: { groupId: true, userId: true },
    });
    if (session.groupId !== null) await this.db.group.update({ where: { id: session.groupId }, data: { lastActivityAt: message.createdAt } });
    await enqueue(
      this.db,
      SessionEvents.MESSAGE_WRITTEN,
      { eventId, occurredAt: message.createdAt, sessionId: message.sessionId, userId: session.userId, messageId: message.id, role: message.role },
      { id: eventId },
    );
  }

  async pending(sessionId: string): Promise<PendingNote | undefined> {
    // One statement: every call of an external agent carries this note.
    const [found] = await this.db.$queryRaw<{ count: bigint; oldest: string[] }[]>`
      SELECT (SELECT COUNT(*) FROM messages m
               WHERE m.session_id = s.id AND m.seq > s.external_read_seq AND m.role = ANY(${PENDING_ROLES})) AS count,
             ARRAY(SELECT m.text FROM messages m
                    WHERE m.session_id = s.id AND m.seq > s.external_read_seq AND m.role = ANY(${PENDING_ROLES})
                    ORDER BY m.seq LIMIT ${PENDING_PREVIEWS}) AS oldest
        FROM sessions s WHERE s.id = ${sessionId} AND s.origin = 'external'`;
    return found === undefined ? undefined : pendingNote(Number(found.count), found.oldest.map((text) => ({ text })));
  }

  async markRead(sessionId: string, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    await this.db.$executeRaw`
      UPDATE sessions SET external_read_seq = GREATEST(external_read_seq,
        (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ${sessionId} AND id = ANY(${[...messageIds]})))
       WHERE id = ${sessionId}`;
  }
}
