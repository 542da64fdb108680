import type { PendingQuestion } from '../../domain/turns/turn.ts';

/**
 * A card a provider raises in its own session: a question to its user (ask_user, AskUserQuestion), which another
 * session's agent may answer, or an approval card for an action the turn would take (a command), which only the
 * session's owner decides, through the user API.
 */
export type CardRequest = (
  | { kind: 'question'; userId: string; sessionId: string; question: string; options: string[] }
  | { kind: 'approval'; userId: string; sessionId: string; title: string; lines: string[] }
) & {
  /**
   * The raise's own name in its session (e.g. the turn's message and step): raised again with it, the card is the
   * same one. Left out, each raise() is a card of its own (its retries after a transport error still one card).
   */
  raiseId?: string;
};

/** What an approval card's decision reads as (awaitAnswer), as a question card would offer the two. */
export const APPROVAL_ANSWERS = { allowed: 'Allow', denied: 'Deny' } as const;

/** A raised card as the session's pendingQuestions show it (kind ask_user: a card the session waits on). */
export function pendingQuestion(id: string, card: CardRequest): PendingQuestion {
  return card.kind === 'approval'
    ? { id, kind: 'ask_user', question: card.title, options: [APPROVAL_ANSWERS.allowed, APPROVAL_ANSWERS.denied] }
    : { id, kind: 'ask_user', question: card.question, options: card.options };
}

/** Cards through the question service. */
export interface QuestionCards {
  /** Shows the card in the session (and its owner's Inbox); returns its id. */
  raise(input: CardRequest): Promise<string>;
  /**
   * Waits until the card is decided: a question card's answer ('' when dismissed), an approval card's
   * APPROVAL_ANSWERS. Throws TurnFailed when the card was withdrawn, and the signal's reason once it aborts.
   */
  awaitAnswer(cardId: string, signal: AbortSignal): Promise<string>;
  /** Withdraws the session's pending cards (its turn ended while one waited). */
  cancel(sessionId: string): Promise<void>;
}
