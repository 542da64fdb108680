/**
 * The question service's answers in the spec's words: a card's kind and status, an ask's status, and the decisions
 * a user or an agent may make on a card.
 */
import { AskStatus, CardKind, CardStatus } from '@relay/proto/relay/question/v1/question_service';

/** allow | deny (approval cards), answer | dismiss (question cards). */
export const CARD_DECISIONS = ['allow', 'deny', 'answer', 'dismiss'] as const;

export type CardStatusName = 'pending' | 'allowed' | 'denied' | 'answered' | 'dismissed' | 'cancelled';

// A status this gateway does not know counts as still pending: it never reads as an Allow.
const CARD_STATUSES: Record<number, CardStatusName> = {
  [CardStatus.CARD_STATUS_UNSPECIFIED]: 'pending',
  [CardStatus.CARD_STATUS_PENDING]: 'pending',
  [CardStatus.CARD_STATUS_ALLOWED]: 'allowed',
  [CardStatus.CARD_STATUS_DENIED]: 'denied',
  [CardStatus.CARD_STATUS_ANSWERED]: 'answered',
  [CardStatus.CARD_STATUS_DISMISSED]: 'dismissed',
  [CardStatus.CARD_STATUS_CANCELLED]: 'cancelled',
};

/** A card's status by name; "pending" for one this gateway does not know. */
export function cardStatusName(status: CardStatus): CardStatusName {
  return CARD_STATUSES[status] ?? 'pending';
}

/** "question" for a question card, "approval" for any other. */
export function cardKindName(kind: CardKind): 'approval' | 'question' {
  return kind === CardKind.CARD_KIND_QUESTION ? 'question' : 'approval';
}

export type AskStatusName = 'pending' | 'answered' | 'dismissed' | 'withdrawn' | 'ended';

// An ask status this gateway does not know reads as ended: it is no longer open.
const ASK_STATUSES: Record<number, AskStatusName> = {
  [AskStatus.ASK_STATUS_PENDING]: 'pending',
  [AskStatus.ASK_STATUS_ANSWERED]: 'answered',
  [AskStatus.ASK_STATUS_DISMISSED]: 'dismissed',
  [AskStatus.ASK_STATUS_WITHDRAWN]: 'withdrawn',
  [AskStatus.ASK_STATUS_ENDED]: 'ended',
};

/** An ask's status by name; "ended" for one this gateway does not know. */
export function askStatusName(status: AskStatus): AskStatusName {
  return ASK_STATUSES[status] ?? 'ended';
}
