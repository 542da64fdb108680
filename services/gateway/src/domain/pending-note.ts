/**
 * The `pending` note on every result to an external session (decisions.md, External sessions): what was written
 * into its conversation (wake-ups, answers to its asks, schedule firings) and its agent has not read yet, so an
 * agent that no relay turn wakes still learns of it on its next call.
 */
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import type { ToolResult } from './result.ts';

/** The note: how many wait, the line that says what each of the first is, and how to read them. */
export interface PendingNote {
  count: number;
  first: string[];
  read: string;
}

/** The note for `pending` in `sessionId`'s conversation; undefined when nothing waits. */
export function pendingNoteOf(sessionId: string, pending: PendingMessages | undefined): PendingNote | undefined {
  if (pending === undefined || pending.count === 0) return undefined;
  const what = pending.count === 1 ? '1 message waits' : `${pending.count} messages wait`;
  return {
    count: pending.count,
    first: pending.previews,
    read: `${what} in your conversation: read them with read_session on session ${sessionId} (your own), or wait on it, which returns as soon as one arrives.`,
  };
}

/** `result` with the note, when there is one. */
export function withPendingNote(result: ToolResult, note: PendingNote | undefined): ToolResult {
  return note === undefined ? result : { ...result, pending: note };
}
