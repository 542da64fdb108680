/**
 * What the question service's use cases need from the outside world. Adapters in store/ implement
 * these; unit tests use in-memory fakes.
 */
import type { Card, CardDecidedEvent } from './entities.ts';

/** Which of a user's cards a listing wants. */
export interface CardFilter {
  /** Only this session's cards. */
  sessionId?: string;
  pendingOnly: boolean;
  /** At most this many, newest first. */
  limit: number;
}

/** Durable cards. Each write is one transaction; decisions carry their card_decided event with them. */
export interface CardStore {
  create(card: Card): Promise<void>;
  find(cardId: string): Promise<Card | undefined>;
  /** Stores a decided card and its event, unless the stored card is no longer pending: then writes nothing and answers false. */
  saveDecision(card: Card, event: CardDecidedEvent): Promise<boolean>;
  /** The user's cards matching the filter, newest first. */
  list(userId: string, filter: CardFilter): Promise<Card[]>;
  /** Cancels every pending card of the session, each with the event `eventFor` makes; returns the cancelled cards. */
  cancelPending(sessionId: string, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]>;
}

/** Fresh ids: card ids (`card_` + 12 base36) and event ids (the outbox id, Nats-Msg-Id). */
export interface IdGenerator {
  newCardId(): string;
  newEventId(): string;
}

/** Hears that a card was decided, whichever replica decided it. */
export interface CardDecisions {
  /** Calls `onDecided` (possibly spuriously: callers re-read the card) until the returned function is called. */
  watch(cardId: string, onDecided: () => void): () => void;
}

/** A source of time: the relay clock (waits, stamps) or real time (keep-alives). Matches @relay/clock's Clock. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms` of this clock's time; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Everything the write use cases need. */
export interface CardDeps {
  store: CardStore;
  ids: IdGenerator;
}
