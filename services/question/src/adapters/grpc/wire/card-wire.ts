/**
 * Domain cards as the proto messages the gRPC API and the events carry. The store writes the events in its
 * transactions: main.ts hands it toCardDecided, so adapters/store imports no other adapter.
 */
import type { CardDecided, CardRaised } from '@relay/proto/relay/question/v1/events';
import {
  CardDecider as CardDeciderMessage,
  CardKind as CardKindMessage,
  CardStatus as CardStatusMessage,
  type Card as CardMessage,
} from '@relay/proto/relay/question/v1/question_service';
import type { CardDecider } from '../../../domain/cards.ts';
import type { Card, CardDecidedEvent, CardKind, CardStatus } from '../../../domain/entities.ts';
import { invalidInput } from '../../../domain/errors.ts';

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

/**
 * Who decides, from DecideCard's decided_by and agent_session_id: the user (no agent session), or an agent (with its
 * session). Anything else is refused, so a caller that forgets to say who decides never decides as the user.
 */
export function deciderOf(decidedBy: CardDeciderMessage, agentSessionId: string): CardDecider {
  if (decidedBy === CardDeciderMessage.CARD_DECIDER_USER && agentSessionId === '') return { kind: 'user' };
  if (decidedBy === CardDeciderMessage.CARD_DECIDER_AGENT && agentSessionId !== '') return { kind: 'agent', sessionId: agentSessionId };
  throw invalidInput("decided_by must be USER (with no agent_session_id) or AGENT (with the agent's agent_session_id)", { field: 'decided_by' });
}

/** The card_decided event. */
export function toCardDecided(event: CardDecidedEvent): CardDecided {
  return { eventId: event.eventId, occurredAt: event.occurredAt, card: toCardMessage(event.card) };
}

/** The card_raised event of a new pending card (its id derived from the card's: one event per card). */
export function toCardRaised(card: Card): CardRaised {
  return { eventId: `card_raised:${card.id}`, occurredAt: card.createdAt, card: toCardMessage(card) };
}
