import { enqueue } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import type { Message } from '../../domain/sessions/conversation.ts';
import type { ExternalInbox } from '../../app/external/ports.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/**
 * An external session's inbox in the sessions and messages tables (sessions.external_read_seq is the read marker);
 * what waits in it is read by pg-session-reads.ts.
 */
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

  async markRead(sessionId: string, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    await this.db.$executeRaw`
      UPDATE sessions SET external_read_seq = GREATEST(external_read_seq,
        (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ${sessionId} AND id = ANY(${[...messageIds]})))
       WHERE id = ${sessionId}`;
  }
}
