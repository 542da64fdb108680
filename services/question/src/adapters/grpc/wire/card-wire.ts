/**
 * Domain cards as the proto messages the gRPC API and the events carry. The store writes the events in its
 * transactions: main.ts hands it toCardDecided, so adapters/store imports no other adapter.
 */
import type { CardDecided } from '@relay/proto/relay/question/v1/events';
import { CardKind as CardKindMessage, CardStatus as CardStatusMessage, type Card as CardMessage } from '@relay/proto/relay/question/v1/question_service';
import type { Card, CardDecidedEvent, CardKind, CardStatus } from '../../../domain/entities.ts';

const KINDS: Record<CardKind, CardKindMessage> = {
  approval: CardKindMessage.CARD_KIND_APPROVAL,
  question: CardKindMessage.CARD_KIND_QUESTION,
};

const STATUSES: Record<CardStatus, CardStatusMessage> = {
  pending: CardStatusMessage.CARD_STATUS_PENDING,
  allowed: CardStatusMessage.CARD_STATUS_ALLOWED,
  denied: CardStatusMessage.CARD_STATUS_DENIED,
  answered: CardStatusMessage.CARD_STATUS_ANSWERED,
  dismissed: CardStatusMessage.CARD_STATUS_DISMISSED,
  cancelled: CardStatusMessage.CARD_STATUS_CANCELLED,
};

/** A card as relay.question.v1.Card. */
export function toCardMessage(card: Card): CardMessage {
  return {
    id: card.id,
    userId: card.userId,
    sessionId: card.sessionId,
    kind: KINDS[card.kind],
    title: card.title,
    lines: card.lines,
    options: card.options,
    status: STATUSES[card.status],
    answer: card.answer,
    choices: card.choices,
    createdAt: card.createdAt,
    decidedAt: card.decidedAt,
  };
}

/** A requested kind as the domain names it; '' for UNSPECIFIED or a kind this service does not know, which the domain refuses. */
export function cardKindOf(kind: CardKindMessage): string {
  return (Object.entries(KINDS) as [CardKind, CardKindMessage][]).find(([, message]) => message === kind)?.[0] ?? '';
}

/** The card_decided event. */
export function toCardDecided(event: CardDecidedEvent): CardDecided {
  return { eventId: event.eventId, occurredAt: event.occurredAt, card: toCardMessage(event.card) };
}
