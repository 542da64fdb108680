import { describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { awaitCard, SAFETY_READ_MS, type AwaitCardEvent } from '../src/app/await-card.ts';
import { decideCard } from '../src/app/decide-card.ts';
import { raiseCard } from '../src/app/raise-card.ts';
import { FakeDecisions, InMemoryCardStore, sequentialIds, allTurnEndsHeard } from './in-memory-card-store.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');

async function setup() {
  const decisions = new FakeDecisions();
  const store = new InMemoryCardStore(decisions);
  const ids = sequentialIds();
  const relayClock = new ManualClock(NOW);
  const realTime = new ManualClock(NOW);
  const card = await raiseCard({ store, ids }, { userId: 'u1', sessionId: 's1', kind: 'approval', title: 'Start?', lines: [], options: [] }, NOW);
  const deps = { store, ids, turnEnds: allTurnEndsHeard, decisions, clock: relayClock, realTime, progressIntervalMs: 5000 };
  return { deps, card, decisions, relayClock, realTime };
}

/** Collects the stream's events in the background; `next()` resolves with the next one. */
function reader(events: AsyncGenerator<AwaitCardEvent>) {
  const iterator = events[Symbol.asyncIterator]();
  return { next: async () => (await iterator.next()).value as AwaitCardEvent | undefined, done: async () => (await iterator.next()).done };
}

// Lets the generator's awaits settle (in-memory store calls are promise-based).
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('awaitCard', () => {
  it('sends progress every interval of real time, then the card once decided', async () => {
    const { deps, card, relayClock, realTime } = await setup();
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 600 }, new AbortController().signal));
    const first = stream.next();
    await settle();
    relayClock.advance(7_000);
    realTime.advance(5_000);
    expect(await first).toEqual({ progressSeconds: 7 });

    const second = stream.next();
    await settle();
    await decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card.id, decision: 'allow', answer: '', choices: [] }, relayClock.now());
    expect(await second).toMatchObject({ card: { id: card.id, status: 'allowed' } });
    expect(await stream.done()).toBe(true);
  });

  it('answers a decided card at once', async () => {
    const { deps, card } = await setup();
    await decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card.id, decision: 'deny', answer: '', choices: [] }, NOW);
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 600 }, new AbortController().signal));
    expect(await stream.next()).toMatchObject({ card: { status: 'denied' } });
    expect(await stream.done()).toBe(true);
  });

  it('ends with the card still pending when wait_seconds of relay time pass', async () => {
    const { deps, card, relayClock, decisions } = await setup();
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 30 }, new AbortController().signal));
    const first = stream.next();
    await settle();
    relayClock.advance(29_999);
    await settle();
    relayClock.advance(1);
    expect(await first).toMatchObject({ card: { id: card.id, status: 'pending' } });
    expect(await stream.done()).toBe(true);
    expect(decisions.watching(card.id)).toBe(0);
  });

  it('answers the card as it stands for wait_seconds 0', async () => {
    const { deps, card } = await setup();
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 0 }, new AbortController().signal));
    expect(await stream.next()).toMatchObject({ card: { status: 'pending' } });
  });

  it('ends without a card when aborted, and stops watching', async () => {
    const { deps, card, decisions } = await setup();
    const abort = new AbortController();
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 600 }, abort.signal));
    const first = stream.next();
    await settle();
    expect(decisions.watching(card.id)).toBe(1);
    abort.abort();
    expect(await first).toBeUndefined();
    expect(decisions.watching(card.id)).toBe(0);
  });

  it('reads the card at no keep-alive while nothing nudges it, and makes up for a lost notification at its safety read', async () => {
    const { deps, card, realTime } = await setup();
    let reads = 0;
    const find = deps.store.find.bind(deps.store);
    deps.store.find = (cardId) => {
      reads += 1;
      return find(cardId);
    };
    const stream = reader(
      awaitCard({ ...deps, decisions: { watch: () => () => undefined } }, { cardId: card.id, waitSeconds: 600 }, new AbortController().signal),
    );
    let next = stream.next();
    await settle();
    expect(reads).toBe(1);
    await decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card.id, decision: 'allow', answer: '', choices: [] }, NOW);
    reads = 0; // the decision's own
    for (let waited = 5_000; waited < SAFETY_READ_MS; waited += 5_000) {
      realTime.advance(5_000);
      expect(await next).toEqual({ progressSeconds: 0 });
      next = stream.next();
      await settle();
    }
    expect(reads).toBe(0);
    realTime.advance(5_000);
    expect(await next).toMatchObject({ card: { status: 'allowed' } });
    expect(reads).toBe(1);
  });

  it('reads the card again at once when a decision nudges it', async () => {
    const { deps, card } = await setup();
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 600 }, new AbortController().signal));
    const first = stream.next();
    await settle();
    await decideCard(deps, { by: { kind: 'user' }, userId: 'u1', cardId: card.id, decision: 'deny', answer: '', choices: [] }, NOW);
    expect(await first).toMatchObject({ card: { status: 'denied' } });
  });

  it.each([
    ['an unknown card', { cardId: 'card_nope', waitSeconds: 5 }, 'REMOTE_RELAY_NOT_FOUND'],
    ['no card id', { cardId: '', waitSeconds: 5 }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a negative wait', { cardId: 'card_1', waitSeconds: -1 }, 'REMOTE_RELAY_INVALID_INPUT'],
    ['a wait over a week', { cardId: 'card_1', waitSeconds: 604_801 }, 'REMOTE_RELAY_INVALID_INPUT'],
  ])('refuses %s', async (_label, request, code) => {
    const { deps } = await setup();
    await expect(reader(awaitCard(deps, request, new AbortController().signal)).next()).rejects.toMatchObject({ code });
  });
});

describe('awaitCard on a keyed card', () => {
  it('uses the decision it ends with, so the same call made again raises a new card', async () => {
    const decisions = new FakeDecisions();
    const store = new InMemoryCardStore(decisions);
    const ids = sequentialIds();
    const clock = new ManualClock(NOW);
    const request = { userId: 'u1', sessionId: 's1', kind: 'approval', title: 'Start?', lines: [], options: [], callKey: 'fp-1' };
    const card = await raiseCard({ store, ids }, request, NOW);
    const deps = { store, ids, decisions, clock, realTime: new ManualClock(NOW), progressIntervalMs: 5000 };
    const stream = reader(awaitCard(deps, { cardId: card.id, waitSeconds: 600 }, new AbortController().signal));
    const last = stream.next();
    await settle();
    await decideCard(
      { store, ids, turnEnds: allTurnEndsHeard },
      { by: { kind: 'user' }, userId: 'u1', cardId: card.id, decision: 'allow', answer: '', choices: [] },
      NOW,
    );
    expect(await last).toEqual({ card: expect.objectContaining({ status: 'allowed' }) });
    expect(store.used.get(card.id)).toEqual(NOW);
    expect((await raiseCard({ store, ids }, request, NOW)).id).not.toBe(card.id);
  });
});
