/**
 * Asks (spec, Questions that don't block): questions an agent asks the user without blocking, and
 * the event their answer announces.
 */

export const ASK_STATUSES = ['pending', 'answered', 'dismissed', 'withdrawn', 'ended'] as const;
/** ended: its session was archived or deleted (nobody is told). */
export type AskStatus = (typeof ASK_STATUSES)[number];

export interface Ask {
  /** `ask_` + 12 base36 characters. */
  id: string;
  userId: string;
  /** The conversation that asked and gets the answer. */
  askingSessionId: string;
  /** The session it is about: the asking conversation itself, or the one it asked on behalf of. */
  aboutSessionId: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  status: AskStatus;
  answer: string;
  /** The option chosen; '' for none. */
  choice: string;
  /** The relay it was answered on. */
  via: string;
  createdAt: Date;
  endedAt: Date | undefined;
}

/** relay.question.v1.question_answered: an ask answered or dismissed. */
export interface QuestionAnsweredEvent {
  eventId: string;
  occurredAt: Date;
  ask: Ask;
}
