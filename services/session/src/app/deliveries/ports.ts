import type { Message } from '../../domain/sessions/conversation.ts';
import type { Session } from '../../domain/sessions/session.ts';
import type { Turn, TurnQueuedEvent } from '../../domain/turns/turn.ts';

/** What delivering a command into a session reads and writes, in the transaction that marks the command handled. */
export interface DeliveryTransaction {
  /** The session with its row locked until the transaction ends (the turn runner cannot claim its turns meanwhile). */
  lockSession(sessionId: string): Promise<Session | undefined>;
  /** Queues a message with its turn and turn_queued (as ConversationStore.queueMessage). */
  queueMessage(input: { message: Message; turn: Turn; event: TurnQueuedEvent }): Promise<void>;
  /** Writes a message into an external session's conversation, pending until its agent reads it. */
  writeExternal(message: Message, eventId: string): Promise<void>;
  /** The session's turn that runs or waits for an answer, if one does. */
  activeTurnId(sessionId: string): Promise<string | undefined>;
  /** The message of the session's newest queued turn, if one waits. */
  lastQueuedMessage(sessionId: string): Promise<{ id: string; role: string; text: string } | undefined>;
  setMessageText(messageId: string, text: string): Promise<void>;
}

/** Commands from the bus, each handled once however often it is delivered. */
export interface Deliveries {
  /** Runs `work` in one transaction, unless `consumer` handled `messageId` before: then nothing runs. */
  once(delivery: Delivery, work: (tx: DeliveryTransaction) => Promise<void>): Promise<void>;
}

/** Which consumer got which message (the key of its once-only mark). */
export interface Delivery {
  consumer: string;
  messageId: string;
}
