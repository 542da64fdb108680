/** One turn, its statuses and the questions it waits on; how the turn runtime groups the statuses. */
import type { Provenance } from '../sessions/conversation.ts';
import type { RelayMode } from '../sessions/session.ts';

export type TurnStatus = 'queued' | 'running' | 'waiting_for_answer' | 'done' | 'error' | 'stopped';

/** Statuses of a turn that is not over: it holds its session (busy, at work). */
export const OPEN_TURN_STATUSES: readonly TurnStatus[] = ['queued', 'running', 'waiting_for_answer'];

/** A question a turn waits on. */
export interface PendingQuestion {
  id: string;
  /** 'ask_user' for a card the session waits on, 'ask' for a non-blocking ask. */
  kind: string;
  question: string;
  options: string[];
}

/** One turn: the run of the agent a queued message starts. */
export interface Turn {
  id: string;
  sessionId: string;
  messageId: string;
  status: TurnStatus;
  mode: RelayMode;
  provenance: Provenance | null;
  senderSessionId: string | null;
  replyText: string;
  replyModel: string;
  error: string;
  inFlight: string;
  pendingQuestions: PendingQuestion[];
  stopRequested: boolean;
  queuedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** The fact published on relay.session.v1.turn_queued; eventId is also the outbox id. */
export interface TurnQueuedEvent {
  eventId: string;
  occurredAt: Date;
  sessionId: string;
  userId: string;
  turnId: string;
  messageId: string;
}

/** The statuses a turn ends in. */
export type EndedTurnStatus = Extract<TurnStatus, 'done' | 'error' | 'stopped'>;

/**
 * How a session's last turn ended (the one that ended most recently; a turn still queued or running is not one): what
 * a person reads as "failed: …" or "stopped" until the next turn runs.
 */
export interface LastTurn {
  status: EndedTurnStatus;
  /** Why it failed (status error); '' otherwise. */
  error: string;
  endedAt: Date;
}

/** True once the turn has ended and will not change again. */
export function isTurnOver(status: TurnStatus): status is EndedTurnStatus {
  return status === 'done' || status === 'error' || status === 'stopped';
}
