/**
 * What the question service's use cases need from the outside world. Adapters (adapters/store, adapters/crypto, the
 * turn-ended consumer) implement these; unit tests use in-memory fakes.
 */
import type { Ask, QuestionAnsweredEvent } from '../domain/ask-entities.ts';
import type { PendingAsks } from '../domain/asks.ts';
import type { Card, CardDecidedEvent } from '../domain/entities.ts';
import type { TurnEnd } from '../domain/cards.ts';
import type { KeyedCard } from '../domain/keyed-cards.ts';

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
  /** Stores a new card once `admit` passes the session's pending count, counted apart from any racing raise. */
  create(card: Card, admit: (pendingInSession: number) => void): Promise<void>;
  find(cardId: string): Promise<Card | undefined>;
  /** Stores a decided card and its event, unless the stored card is no longer pending: then writes nothing and answers false. */
  saveDecision(card: Card, event: CardDecidedEvent): Promise<boolean>;
  /** The user's cards matching the filter, newest first. */
  list(userId: string, filter: CardFilter): Promise<Card[]>;
  /** The session's cards raised for `callKey` that are undecided or were decided at or after `decidedSince`. */
  keyedCards(sessionId: string, callKey: string, decidedSince: Date): Promise<KeyedCard[]>;
  /** Marks a keyed card's decision used at `now`, unless it already was; true when this call took it. */
  markUsed(cardId: string, now: Date): Promise<boolean>;
  /** Cancels every pending card of the session, each with the event `eventFor` makes; returns the cancelled cards. */
  cancelPending(sessionId: string, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]>;
  /** Cancels the cards `end` leaves pending (isLeftByTurnEnd), each with the event `eventFor` makes; returns them. */
  cancelLeftByTurn(end: TurnEnd, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]>;
}

/** Fresh ids: card ids (`card_` + 12 base36) and event ids (the outbox id, Nats-Msg-Id). */
export interface IdGenerator {
  newCardId(): string;
  /** The card id of the session's raise named `raiseId` (RaiseCard's raise_id): always the same for the two. */
  cardIdFor(sessionId: string, raiseId: string): string;
  /** `ask_` + 12 base36. */
  newAskId(): string;
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

/**
 * Whether this service has heard every turn end published while it was away (adapters/bus/turn-ended-consumer.ts): until
 * then a pending card may belong to a turn that is gone, and deciding it would be taken and do nothing.
 */
export interface TurnEndsHeard {
  /** Resolves once they are all handled; rejects with an `unavailable` AppError when that takes too long. */
  caughtUp(): Promise<void>;
}

/** Which of a user's asks a listing wants. */
export interface AskFilter {
  askingSessionId?: string;
  aboutSessionId?: string;
  pendingOnly: boolean;
  /** Ended asks only when they ended at or after this. */
  endedSince: Date;
  limit: number;
}

/** The listing of asks (ListAsks: every read_session asks for those pending about its session). */
export interface AskReads {
  /** The user's asks matching the filter, newest first, at most `filter.limit`. */
  list(userId: string, filter: AskFilter): Promise<Ask[]>;
}

/** Durable asks. Each write is one transaction; an answer carries its question_answered event with it. */
export interface AskStore {
  /** The pending asks held by the asking conversation and about the session asked about. */
  pendingCounts(askingSessionId: string, aboutSessionId: string): Promise<PendingAsks>;
  /** Stores a new ask if `admit` (called with the pending counts, under a lock on both sessions) does not throw. */
  create(ask: Ask, admit: (pending: PendingAsks) => void): Promise<void>;
  find(askId: string): Promise<Ask | undefined>;
  /** Stores an ended ask (and its event) unless it is no longer pending: then writes nothing and answers false. */
  saveEnd(ask: Ask, event: QuestionAnsweredEvent | undefined): Promise<boolean>;
  /** Publishes the answer to an ask kept on a paired relay, unless an event with its id was published before. */
  publishRemoteAnswer(event: QuestionAnsweredEvent): Promise<boolean>;
  /** Ends every pending ask the session asked or that is about it; returns how many. */
  endPending(sessionId: string, now: Date): Promise<number>;
}
