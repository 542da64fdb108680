/**
 * In-memory fakes of the domain's ports, for unit tests of the use cases.
 */
import type { Card, CardDecidedEvent } from '../src/domain/entities.ts';
import type { CardDecisions, CardFilter, CardStore, IdGenerator, TurnEndsHeard } from '../src/app/ports.ts';
import { isLeftByTurnEnd, type TurnEnd } from '../src/domain/cards.ts';
import type { KeyedCard } from '../src/domain/keyed-cards.ts';

/** Cards in a map; decisions tell the watchers, as the NOTIFY does. */
export class InMemoryCardStore implements CardStore {
  readonly cards = new Map<string, Card>();
  readonly events: CardDecidedEvent[] = [];
  /** When a keyed card's decision was used, by card id. */
  readonly used = new Map<string, Date>();

  constructor(private readonly decisions?: FakeDecisions) {}

  async create(card: Card, admit: (pendingInSession: number) => void = () => undefined): Promise<void> {
    admit([...this.cards.values()].filter((stored) => stored.sessionId === card.sessionId && stored.status === 'pending').length);
    this.cards.set(card.id, structuredClone(card));
  }

  async keyedCards(sessionId: string, callKey: string, decidedSince: Date): Promise<KeyedCard[]> {
    return [...this.cards.values()]
      .filter((card) => card.sessionId === sessionId && card.callKey === callKey)
      .filter((card) => card.decidedAt === undefined || card.decidedAt >= decidedSince)
      .map((card) => ({ card: structuredClone(card), used: this.used.has(card.id) }));
  }

  async markUsed(cardId: string, now: Date): Promise<boolean> {
    if (this.used.has(cardId)) return false;
    this.used.set(cardId, now);
    return true;
  }

  async find(cardId: string): Promise<Card | undefined> {
    const card = this.cards.get(cardId);
    return card === undefined ? undefined : structuredClone(card);
  }

  async saveDecision(card: Card, event: CardDecidedEvent): Promise<boolean> {
    if (this.cards.get(card.id)?.status !== 'pending') return false;
    this.cards.set(card.id, structuredClone(card));
    this.events.push(event);
    this.decisions?.decided(card.id);
    return true;
  }

  async list(userId: string, filter: CardFilter): Promise<Card[]> {
    return [...this.cards.values()]
      .filter((card) => card.userId === userId && (filter.sessionId === undefined || card.sessionId === filter.sessionId))
      .filter((card) => !filter.pendingOnly || card.status === 'pending')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, filter.limit);
  }

  async cancelPending(sessionId: string, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]> {
    return this.cancelWhere((card) => card.sessionId === sessionId && card.status === 'pending', decidedAt, eventFor);
  }

  async cancelLeftByTurn(end: TurnEnd, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]> {
    return this.cancelWhere((card) => isLeftByTurnEnd(card, end), decidedAt, eventFor);
  }

  private cancelWhere(matches: (card: Card) => boolean, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Card[] {
    const cancelled: Card[] = [];
    for (const card of this.cards.values()) {
      if (!matches(card)) continue;
      const next: Card = { ...card, status: 'cancelled', decidedAt };
      this.cards.set(card.id, next);
      this.events.push(eventFor(next));
      cancelled.push(next);
      this.decisions?.decided(card.id);
    }
    return cancelled;
  }
}

/** Watchers by card id; `decided` tells them. */
export class FakeDecisions implements CardDecisions {
  private readonly watchers = new Map<string, Set<() => void>>();

  watch(cardId: string, onDecided: () => void): () => void {
    const set = this.watchers.get(cardId) ?? new Set();
    this.watchers.set(cardId, set);
    set.add(onDecided);
    return () => set.delete(onDecided);
  }

  decided(cardId: string): void {
    for (const onDecided of [...(this.watchers.get(cardId) ?? [])]) onDecided();
  }

  watching(cardId: string): number {
    return this.watchers.get(cardId)?.size ?? 0;
  }
}

/** card_1, card_2, …, ask_1, ask_2, … and evt_1, evt_2, … */
export function sequentialIds(): IdGenerator {
  let cards = 0;
  let asks = 0;
  let events = 0;
  return {
    newCardId: () => `card_${++cards}`,
    cardIdFor: (sessionId, raiseId) => `card_${sessionId}_${raiseId}`,
    newAskId: () => `ask_${++asks}`,
    newEventId: () => `evt_${++events}`,
  };
}

/** A service that has heard every turn end (the usual case once it has run a moment). */
export const allTurnEndsHeard: TurnEndsHeard = { caughtUp: async () => undefined };
