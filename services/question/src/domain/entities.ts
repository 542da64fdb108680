/**
 * The question service's domain values: cards and the events their decisions announce.
 */

export const CARD_KINDS = ['approval', 'question'] as const;
/** approval: the user allows or denies a relay_tool call. question: a session's agent asks the user. */
export type CardKind = (typeof CARD_KINDS)[number];

export const CARD_STATUSES = ['pending', 'allowed', 'denied', 'answered', 'dismissed', 'cancelled'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

export const DECISIONS = ['allow', 'deny', 'answer', 'dismiss'] as const;
export type Decision = (typeof DECISIONS)[number];

/** A card shown in a session and in its user's Inbox. */
export interface Card {
  /** `card_` + 12 base36 characters. */
  id: string;
  userId: string;
  /** The session it shows in. */
  sessionId: string;
  kind: CardKind;
  title: string;
  lines: string[];
  /** The answers a question card offers; always empty on approval cards. */
  options: string[];
  status: CardStatus;
  answer: string;
  choices: string[];
  createdAt: Date;
  decidedAt: Date | undefined;
  /**
   * An external session's call the card was raised for (a fingerprint of its action and arguments); '' for
   * every other card. The same call made again is answered with this card instead of a new one.
   */
  callKey: string;
}

/** relay.question.v1.card_decided: a card left pending (allowed, denied, answered, dismissed or cancelled). */
export interface CardDecidedEvent {
  eventId: string;
  occurredAt: Date;
  card: Card;
}
