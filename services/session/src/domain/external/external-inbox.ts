/**
 * An external session's inbox (decisions.md, External sessions): its agent runs outside the relay, so what
 * would wake a hosted agent (wake-ups, answers to its asks, schedule firings) is written into the conversation
 * as a message and stays pending for the agent until it reads its own conversation. Pure: the store keeps the
 * messages and the read marker.
 */
import type { Message, MessageRole } from '../sessions/conversation.ts';

/** The roles that reach an external conversation from the relay (wake-ups and answers, schedule firings): what is pending. */
export const PENDING_ROLES: readonly MessageRole[] = ['event', 'schedule'];

/** How many pending messages the note previews, and how long each preview line may be. */
export const PENDING_PREVIEWS = 3;
export const PENDING_PREVIEW_CHARS = 200;

/** What waits unread for an external session's agent. */
export interface PendingNote {
  count: number;
  /** The first line of each of the first PENDING_PREVIEWS pending messages (past its header line), oldest first. */
  previews: string[];
}

/** The note for the pending messages, oldest first (`count` may exceed the messages given). */
export function pendingNote(count: number, oldest: readonly Pick<Message, 'text'>[]): PendingNote {
  return { count, previews: oldest.slice(0, PENDING_PREVIEWS).map((message) => previewOf(message.text)) };
}

/**
 * The line that says what a message is: a relay event's first row (its first line is the fixed
 * "[relay event · automated message…]" header), a schedule's header, or the first line of anything else.
 */
export function previewOf(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = lines[0] ?? '';
  const line = first.startsWith('[relay event ·') && lines.length > 1 ? lines[1]! : first;
  return line.length > PENDING_PREVIEW_CHARS ? `${line.slice(0, PENDING_PREVIEW_CHARS - 1)}…` : line;
}
