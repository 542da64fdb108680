// A turns row as the domain reads it: the one mapping of both stores that read turns.
import type { Provenance } from '../../domain/sessions/conversation.ts';
import type { RelayMode } from '../../domain/sessions/session.ts';
import type { PendingQuestion, Turn, TurnStatus } from '../../domain/turns/turn.ts';
import type { Turn as TurnRow } from '../../generated/prisma/client.ts';

/** A turns row as the domain's Turn. */
export function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    sessionId: row.sessionId,
    messageId: row.messageId,
    status: row.status as TurnStatus,
    mode: row.mode as RelayMode,
    provenance: row.provenance as Provenance | null,
    senderSessionId: row.senderSessionId,
    replyText: row.replyText,
    replyModel: row.replyModel,
    error: row.error,
    inFlight: row.inFlight,
    pendingQuestions: toPendingQuestions(row.pendingQuestions),
    stopRequested: row.stopRequested,
    queuedAt: row.queuedAt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
  };
}

/** A turn's pending questions (a JSON column: anything but an array reads as none). */
export function toPendingQuestions(value: unknown): PendingQuestion[] {
  return Array.isArray(value) ? (value as PendingQuestion[]) : [];
}
