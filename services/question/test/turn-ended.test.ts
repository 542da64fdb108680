// No stale cards: which cards a turn's end withdraws, the consumer's handling of turn_ended payloads, and what
// answering a withdrawn card says. Time is explicit: every card and end carries its own instant.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import { TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import { createLogger } from '@relay/telemetry';
import { withdrawCardsOfTurnEnded } from '../src/adapters/bus/turn-ended-consumer.ts';
import { decideCard } from '../src/app/decide-card.ts';
import type { Card } from '../src/domain/entities.ts';
import { withdrawCardsOfEndedTurn } from '../src/app/turn-ended.ts';
import { isLeftByTurnEnd, type TurnEnd } from '../src/domain/cards.ts';
import type { TurnEndsHeard } from '../src/app/ports.ts';
import { InMemoryCardStore, sequentialIds, allTurnEndsHeard } from './in-memory-card-store.ts';

const RAISED = new Date('2026-11-30T10:00:00.000Z');
const ENDED = new Date('2026-11-30T10:03:00.000Z');
const NOW = new Date('2026-11-30T11:00:00.000Z');
const logger = createLogger({ name: 'turn-ended-test', level: 'silent' });

const card = (fields: Partial<Card> = {}): Card => ({
  id: 'card_question00',
  userId: 'u1',
  sessionId: 's1',
  kind: 'question',
  title: 'Run the migration?',
  lines: [],
  options: ['Allow', 'Deny'],
  status: 'pending',
  answer: '',
  choices: [],
  createdAt: RAISED,
  decidedAt: undefined,
  callKey: '',
  ...fields,
});
const end: TurnEnd = { sessionId: 's1', turnId: 'turn_1', endedAt: ENDED };
const ms = (date: Date, delta: number) => new Date(date.getTime() + delta);

describe('isLeftByTurnEnd', () => {
  it.each<[string, Card, boolean]>([
    ['a pending card raised during the turn', card(), true],
    ['a pending card raised at the very instant the turn ended', card({ createdAt: ENDED }), true],
    ['a pending approval card (the gateway raised it for the turn’s agent)', card({ kind: 'approval', options: [] }), true],
    ['a pending card of an earlier turn', card({ createdAt: ms(RAISED, -3_600_000) }), true],
    ['a card raised 1 ms after the end (the next turn’s)', card({ createdAt: ms(ENDED, 1) }), false],
    ['a card of another session', card({ sessionId: 's2' }), false],
    ['an external session’s keyed card (no hosted turn owns it)', card({ callKey: 'send:abc123' }), false],
    ...(['allowed', 'denied', 'answered', 'dismissed', 'cancelled'] as const).map((status): [string, Card, boolean] => [
      `a card already ${status}`,
      card({ status, decidedAt: RAISED }),
      false,
    ]),
  ])('%s → %s', (_label, candidate, withdrawn) => {
    expect(isLeftByTurnEnd(candidate, end)).toBe(withdrawn);
  });
});

describe('withdrawCardsOfEndedTurn', () => {
  async function storeWith(...cards: Card[]) {
    const store = new InMemoryCardStore();
    for (const one of cards) await store.create(one);
    return store;
  }

  it('cancels what the turn left pending, stamped now, one card_decided event each, and leaves the rest', async () => {
    const left = card({ id: 'card_left000000' });
    const next = card({ id: 'card_next000000', createdAt: ms(ENDED, 500) });
    const other = card({ id: 'card_other00000', sessionId: 's2' });
    const keyed = card({ id: 'card_keyed00000', callKey: 'send:abc123' });
    const store = await storeWith(left, next, other, keyed);
    const withdrawn = await withdrawCardsOfEndedTurn({ store, ids: sequentialIds() }, end, NOW);
    expect(withdrawn).toEqual([{ ...left, status: 'cancelled', decidedAt: NOW }]);
    expect(store.events).toEqual([{ eventId: 'evt_1', occurredAt: NOW, card: { ...left, status: 'cancelled', decidedAt: NOW } }]);
    for (const kept of [next, other, keyed]) expect(await store.find(kept.id)).toEqual(kept);
  });

  it('changes nothing the second time (a redelivered turn_ended)', async () => {
    const store = await storeWith(card());
    const deps = { store, ids: sequentialIds() };
    expect(await withdrawCardsOfEndedTurn(deps, end, NOW)).toHaveLength(1);
    expect(await withdrawCardsOfEndedTurn(deps, end, ms(NOW, 60_000))).toEqual([]);
    expect(store.events).toHaveLength(1);
    expect((await store.find(card().id))?.decidedAt).toEqual(NOW);
  });

  it('ignores an end without a session', async () => {
    const store = await storeWith(card({ sessionId: '' }));
    expect(await withdrawCardsOfEndedTurn({ store, ids: sequentialIds() }, { ...end, sessionId: '' }, NOW)).toEqual([]);
  });
});

describe('withdrawCardsOfTurnEnded (the consumer’s handler)', () => {
  const payload = (fields: Partial<TurnEnded> = {}) =>
    TurnEnded.toJSON({
      eventId: 'evt_end',
      occurredAt: ENDED,
      sessionId: 's1',
      userId: 'u1',
      turnId: 'turn_1',
      messageId: 'msg_1',
      status: TurnStatus.TURN_STATUS_ERROR,
      text: 'the question service failed',
      senderSessionId: '',
      ...fields,
    });

  it.each([
    ['a turn_ended of the card’s session', payload(), 1],
    ['a turn_ended of another session', payload({ sessionId: 's2' }), 0],
    ['a turn_ended that ended before the card was raised', payload({ occurredAt: ms(RAISED, -1) }), 0],
    ['a turn_ended without occurred_at (cannot be told from the next turn)', payload({ occurredAt: undefined }), 0],
    ['a turn_ended without a session', payload({ sessionId: '' }), 0],
    ['a payload that is not a turn_ended', { nonsense: true }, 0],
  ])('%s withdraws %d card(s)', async (_label, data, count) => {
    const store = new InMemoryCardStore();
    await store.create(card());
    const clock = new ManualClock(NOW);
    // The consumer hands the handler the payload decoded with the contract's codec.
    expect(await withdrawCardsOfTurnEnded({ store, ids: sequentialIds(), clock, logger }, TurnEnded.fromJSON(data))).toBe(count);
    expect((await store.find(card().id))?.status).toBe(count === 1 ? 'cancelled' : 'pending');
  });
});

describe('answering a card whose turn is gone', () => {
  it.each([
    ['answer', { decision: 'answer', choices: ['Allow'] }],
    ['dismiss', { decision: 'dismiss' }],
  ])('%s is refused with REMOTE_RELAY_NO_ACTIVE_TURN naming the card and its session, and changes nothing', async (_label, decision) => {
    const store = new InMemoryCardStore();
    await store.create(card());
    const deps = { store, ids: sequentialIds(), turnEnds: allTurnEndsHeard };
    await withdrawCardsOfEndedTurn(deps, end, NOW);
    const events = store.events.length;
    const refused = decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card().id, answer: '', choices: [], ...decision }, ms(NOW, 1_000));
    await expect(refused).rejects.toMatchObject({
      code: 'REMOTE_RELAY_NO_ACTIVE_TURN',
      kind: 'failed_precondition',
      details: { card: card().id, session: 's1', status: 'cancelled' },
    });
    await expect(refused).rejects.toThrow(/withdrawn: the turn that asked it in session s1 has ended/);
    expect(await store.find(card().id)).toMatchObject({ status: 'cancelled', decidedAt: NOW });
    expect(store.events).toHaveLength(events);
  });

  it('still answers not found for another user, before saying the turn is gone', async () => {
    const store = new InMemoryCardStore();
    await store.create(card({ status: 'cancelled', decidedAt: NOW }));
    await expect(
      decideCard(
        { store, ids: sequentialIds(), turnEnds: allTurnEndsHeard },
        { by: { kind: 'user' }, userId: 'u2', cardId: card().id, decision: 'dismiss', answer: '', choices: [] },
        NOW,
      ),
    ).rejects.toMatchObject({
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
  });
});

describe('an answer arriving before the turn ends missed while away are handled', () => {
  /** Turn ends still being handled: caughtUp waits until the test says they are (or that it took too long). */
  function hearing(): TurnEndsHeard & { done(): void; tooLong(): void } {
    let settle!: (error?: AppError) => void;
    const heard = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
    return {
      caughtUp: () => heard,
      done: () => settle(),
      tooLong: () => settle(new AppError('SERVICE_UNAVAILABLE', 'unavailable', 'still handling the turn ends it missed')),
    };
  }
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it('waits for them: a card whose turn ended meanwhile is refused as withdrawn, not taken', async () => {
    const store = new InMemoryCardStore();
    await store.create(card());
    const turnEnds = hearing();
    const deps = { store, ids: sequentialIds(), turnEnds };
    const answering = decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card().id, decision: 'answer', answer: '', choices: ['Allow'] }, NOW);
    answering.catch(() => undefined);
    await flush();
    expect((await store.find(card().id))?.status).toBe('pending');
    // The backlog's turn end for s1 is handled, then the service has heard them all.
    await withdrawCardsOfEndedTurn(deps, end, NOW);
    turnEnds.done();
    await expect(answering).rejects.toMatchObject({ code: 'REMOTE_RELAY_NO_ACTIVE_TURN' });
    expect(store.events.map((event) => event.card.status)).toEqual(['cancelled']);
  });

  it("the next turn's card is answered once they are handled", async () => {
    const store = new InMemoryCardStore();
    await store.create(card({ createdAt: ms(ENDED, 1) }));
    const turnEnds = hearing();
    const deps = { store, ids: sequentialIds(), turnEnds };
    const answering = decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card().id, decision: 'answer', answer: '', choices: ['Allow'] }, NOW);
    await withdrawCardsOfEndedTurn(deps, end, NOW);
    turnEnds.done();
    expect(await answering).toMatchObject({ status: 'answered', choices: ['Allow'] });
  });

  it('when they take too long the answer is refused as unavailable (try again) and the card stays pending', async () => {
    const store = new InMemoryCardStore();
    await store.create(card());
    const turnEnds = hearing();
    const answering = decideCard(
      { store, ids: sequentialIds(), turnEnds },
      { by: { kind: 'user' }, userId: 'u1', cardId: card().id, decision: 'dismiss', answer: '', choices: [] },
      NOW,
    );
    turnEnds.tooLong();
    await expect(answering).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', kind: 'unavailable' });
    expect((await store.find(card().id))?.status).toBe('pending');
    expect(store.events).toEqual([]);
  });
});
