import { processOnce } from '@relay/bus';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { Message } from '../../domain/sessions/conversation.ts';
import type { Session } from '../../domain/sessions/session.ts';
import type { Turn, TurnQueuedEvent } from '../../domain/turns/turn.ts';
import type { Deliveries, Delivery, DeliveryTransaction } from '../../app/deliveries/ports.ts';
import type { ApiMessages } from './outbox-events.ts';
import { PrismaExternalInbox } from './prisma-external-inbox.ts';
import { PrismaSessionStore } from './prisma-session-store.ts';

/** Bus commands handled once each: the once-only mark (@relay/bus's processed_messages) and the writes in one transaction. */
export class PrismaDeliveries implements Deliveries {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly api: Pick<ApiMessages, 'toSessionMessage'>,
  ) {}

  async once(delivery: Delivery, work: (tx: DeliveryTransaction) => Promise<void>): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      if (!(await processOnce(tx, delivery.consumer, delivery.messageId))) return;
      await work(new PrismaDeliveryTransaction(tx, this.api));
    });
  }
}

class PrismaDeliveryTransaction implements DeliveryTransaction {
  readonly #sessions: PrismaSessionStore;

  constructor(
    private readonly tx: Prisma.TransactionClient,
    api: Pick<ApiMessages, 'toSessionMessage'>,
  ) {
    this.#sessions = new PrismaSessionStore(tx, api, true);
  }

  lockSession(sessionId: string): Promise<Session | undefined> {
    return this.#sessions.lockSession(sessionId);
  }

  queueMessage(input: { message: Message; turn: Turn; event: TurnQueuedEvent }): Promise<void> {
    return this.#sessions.queueMessage(input);
  }

  writeExternal(message: Message, eventId: string): Promise<void> {
    return new PrismaExternalInbox(this.tx).write(message, eventId);
  }

  async activeTurnId(sessionId: string): Promise<string | undefined> {
    const [running] = await this.tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM turns WHERE session_id = ${sessionId} AND status IN ('running', 'waiting_for_answer') LIMIT 1`;
    return running?.id;
  }

  async lastQueuedMessage(sessionId: string): Promise<{ id: string; role: string; text: string } | undefined> {
    const [last] = await this.tx.$queryRaw<{ message_id: string; role: string; text: string }[]>`
      SELECT t.message_id, m.role, m.text FROM turns t JOIN messages m ON m.id = t.message_id
       WHERE t.session_id = ${sessionId} AND t.status = 'queued'
       ORDER BY t.queued_at DESC, t.id DESC LIMIT 1`;
    return last === undefined ? undefined : { id: last.message_id, role: last.role, text: last.text };
  }

  async setMessageText(messageId: string, text: string): Promise<void> {
    await this.tx.$executeRaw`UPDATE messages SET text = ${text} WHERE id = ${messageId}`;
  }
}
