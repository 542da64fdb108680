import { enqueue } from '@relay/bus';
import { QuestionEvents } from '@relay/proto/relay/bus-contracts';
import type { CardDecided, CardRaised } from '@relay/proto/relay/question/v1/events';
import type { Card as CardRow, PrismaClient } from '../../generated/prisma/client.ts';
import { CARD_KINDS, CARD_STATUSES, type Card, type CardDecidedEvent } from '../../domain/entities.ts';
import type { CardFilter, CardStore } from '../../app/ports.ts';
import type { TurnEnd } from '../../domain/cards.ts';
import type { KeyedCard } from '../../domain/keyed-cards.ts';
import { CARD_DECIDED_CHANNEL } from './pg-card-decisions.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * The question service's cards in its own PostgreSQL database, through Prisma. `toCardDecided` encodes the events it
 * writes to the outbox: main.ts passes adapters/grpc/wire's, since the event carries the gRPC API's Card message.
 */
export class PrismaCardStore implements CardStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly toCardDecided: (event: CardDecidedEvent) => CardDecided,
    /** Encodes card_raised (notifications, docs/adr/0031); without it a raise announces nothing. */
    private readonly toCardRaised?: (card: Card) => CardRaised,
  ) {}

  async create(card: Card, admit: (pendingInSession: number) => void): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      // Two racing raises in one session count one after the other.
      await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `cards:${card.sessionId}`);
      admit(await tx.card.count({ where: { sessionId: card.sessionId, status: 'pending' } }));
      await tx.card.create({ data: { ...card, decidedAt: card.decidedAt ?? null } });
      if (this.toCardRaised !== undefined) {
        const event = this.toCardRaised(card);
        await enqueue(tx, QuestionEvents.CARD_RAISED, event, { id: event.eventId });
      }
    });
  }

  async keyedCards(sessionId: string, callKey: string, decidedSince: Date): Promise<KeyedCard[]> {
    const rows = await this.prisma.card.findMany({
      where: { sessionId, callKey, OR: [{ decidedAt: null }, { decidedAt: { gte: decidedSince } }] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map((row) => ({ card: toCard(row), used: row.usedAt !== null }));
  }

  async markUsed(cardId: string, now: Date): Promise<boolean> {
    // Conditional on unused: of two calls racing for one decision only one takes it.
    const { count } = await this.prisma.card.updateMany({ where: { id: cardId, usedAt: null }, data: { usedAt: now } });
    return count === 1;
  }

  async find(cardId: string): Promise<Card | undefined> {
    const row = await this.prisma.card.findUnique({ where: { id: cardId } });
    return row === null ? undefined : toCard(row);
  }

  async saveDecision(card: Card, event: CardDecidedEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      // Conditional on pending: of two racing decisions (or a decision and a cancel) only one writes.
      const { count } = await tx.card.updateMany({
        where: { id: card.id, status: 'pending' },
        data: { status: card.status, answer: card.answer, choices: card.choices, decidedAt: card.decidedAt ?? null },
      });
      if (count === 0) return false;
      await this.announce(tx, event);
      return true;
    });
  }

  async list(userId: string, filter: CardFilter): Promise<Card[]> {
    const rows = await this.prisma.card.findMany({
      where: {
        userId,
        ...(filter.sessionId === undefined ? {} : { sessionId: filter.sessionId }),
        ...(filter.pendingOnly ? { status: 'pending' } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map(toCard);
  }

  async cancelPending(sessionId: string, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.card.updateManyAndReturn({ where: { sessionId, status: 'pending' }, data: { status: 'cancelled', decidedAt } });
      const cards = rows.map(toCard);
      for (const card of cards) await this.announce(tx, eventFor(card));
      return cards;
    });
  }

  async cancelLeftByTurn(end: TurnEnd, decidedAt: Date, eventFor: (card: Card) => CardDecidedEvent): Promise<Card[]> {
    return this.prisma.$transaction(async (tx) => {
      // isLeftByTurnEnd as a query: pending, unkeyed, raised at or before the end.
      const rows = await tx.card.updateManyAndReturn({
        where: { sessionId: end.sessionId, status: 'pending', callKey: '', createdAt: { lte: end.endedAt } },
        data: { status: 'cancelled', decidedAt },
      });
      const cards = rows.map(toCard);
      for (const card of cards) await this.announce(tx, eventFor(card));
      return cards;
    });
  }

  // The event goes out through the outbox; the NOTIFY wakes this process's and other replicas' waiters on commit.
  private async announce(tx: Tx, event: CardDecidedEvent): Promise<void> {
    await enqueue(tx, QuestionEvents.CARD_DECIDED, this.toCardDecided(event), { id: event.eventId });
    await tx.$executeRawUnsafe('SELECT pg_notify($1, $2)', CARD_DECIDED_CHANNEL, event.card.id);
  }
}

function toCard(row: CardRow): Card {
  return {
    id: row.id,
    userId: row.userId,
    sessionId: row.sessionId,
    kind: oneOf(CARD_KINDS, row.kind, 'kind'),
    title: row.title,
    lines: strings(row.lines, 'lines'),
    options: strings(row.options, 'options'),
    status: oneOf(CARD_STATUSES, row.status, 'status'),
    answer: row.answer,
    choices: strings(row.choices, 'choices'),
    createdAt: row.createdAt,
    decidedAt: row.decidedAt ?? undefined,
    callKey: row.callKey,
  };
}

// Only this service writes these columns; a value outside them is a bug, not input.
function oneOf<T extends string>(values: readonly T[], value: string, column: string): T {
  if (!(values as readonly string[]).includes(value)) throw new Error(`cards.${column} holds unknown value "${value}"`);
  return value as T;
}

function strings(value: unknown, column: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`cards.${column} is not a list of strings`);
  return value;
}
