import type { Message } from '../../domain/sessions/conversation.ts';

/** Where an external session's inbox is kept: its messages (no turns) and the agent's read marker. */
export interface ExternalInbox {
  /**
   * Writes a message into the external conversation without a turn: counted on the session, pending until read,
   * and announced as relay.session.v1.message_written (event `eventId`), in the same transaction.
   */
  write(message: Message, eventId: string): Promise<void>;
  /** The agent read these messages of its own conversation: everything up to the newest of them is read. */
  markRead(sessionId: string, messageIds: readonly string[]): Promise<void>;
}
