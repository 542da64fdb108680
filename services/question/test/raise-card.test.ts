import { describe, expect, it } from 'vitest';
import { raiseCard } from '../src/app/raise-card.ts';
import { buildCard, type RaiseCardInput } from '../src/domain/cards.ts';
import { cancelCards } from '../src/app/cancel-cards.ts';
import { listCards } from '../src/app/list-cards.ts';
import { getCard } from '../src/app/get-card.ts';
import { InMemoryCardStore, sequentialIds } from './in-memory-card-store.ts';

const NOW = new Date('2026-11-30T10:00:00.000Z');
const raise = (fields: Partial<RaiseCardInput>): RaiseCardInput => ({
  userId: 'u1',
  sessionId: 's1',
  kind: 'question',
  title: 'Ship tonight?',
  lines: [],
  options: ['Tonight', 'Wait'],
  ...fields,
});

describe('buildCard', () => {
  it('makes a pending card stamped now, title and options trimmed', () => {
    expect(buildCard(raise({ title: '  Ship tonight?  ', options: [' Tonight', 'Wait '], lines: ['  as is  '] }), 'card_1', NOW)).toEqual({
      id: 'card_1',
      userId: 'u1',
      sessionId: 's1',
      kind: 'question',
      title: 'Ship tonight?',
      lines: ['  as is  '],
      options: ['Tonight', 'Wait'],
      status: 'pending',
      answer: '',
      choices: [],
      createdAt: NOW,
      decidedAt: undefined,
      callKey: '',
    });
  });

  it('makes an approval card with lines and no options', () => {
    expect(buildCard(raise({ kind: 'approval', options: [], lines: ['Group: Release 2.4 (grp_1)'] }), 'card_2', NOW)).toMatchObject({
      kind: 'approval',
      lines: ['Group: Release 2.4 (grp_1)'],
      options: [],
    });
  });

  it.each([
    ['user_id', raise({ userId: '' })],
    ['session_id', raise({ sessionId: '' })],
    ['kind', raise({ kind: '' })],
    ['kind', raise({ kind: 'poll' })],
    ['title', raise({ title: '   ' })],
    ['title', raise({ title: 'x'.repeat(301) })],
    ['lines', raise({ lines: Array.from({ length: 51 }, () => 'l') })],
    ['lines', raise({ lines: ['x'.repeat(1001)] })],
    ['options', raise({ kind: 'approval', options: ['Yes'] })],
    ['options', raise({ options: Array.from({ length: 21 }, (_, i) => `o${i}`) })],
    ['options', raise({ options: ['Tonight', ' '] })],
    ['options', raise({ options: ['x'.repeat(201)] })],
    ['options', raise({ options: ['Wait', ' Wait'] })],
    ['call_key', raise({ callKey: 'k'.repeat(201) })],
  ])('refuses a bad %s', (field, request) => {
    expect(() => buildCard(request, 'card_x', NOW)).toThrow(
      expect.objectContaining({ code: 'REMOTE_RELAY_INVALID_INPUT', details: expect.objectContaining({ field }) }),
    );
  });
});

describe('raiseCard, listCards, cancelCards', () => {
  it('stores a raised card; a refused one stores nothing', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const card = await raiseCard(deps, raise({}), NOW);
    expect(await store.find(card.id)).toEqual(card);
    await expect(raiseCard(deps, raise({ title: '' }), NOW)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    expect(store.cards.size).toBe(1);
  });

  it('refuses an eleventh card waiting in one session with REMOTE_RELAY_QUESTION_LIMIT and stores nothing; a decided one frees a place', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const raised = [];
    for (let n = 0; n < 10; n++) raised.push(await raiseCard(deps, raise({ kind: 'approval', title: `Run command ${n}?`, options: [] }), NOW));
    await expect(raiseCard(deps, raise({}), NOW)).rejects.toMatchObject({ code: 'REMOTE_RELAY_QUESTION_LIMIT', details: { pending: 10, limit: 10 } });
    expect(store.cards.size).toBe(10);
    // Another session is not held back by this one's cards.
    await raiseCard(deps, raise({ sessionId: 's2' }), NOW);
    store.cards.get(raised[0]!.id)!.status = 'denied';
    await raiseCard(deps, raise({}), NOW);
    expect(store.cards.size).toBe(12);
  });

  it('lists newest first, by session and pending, only the user’s', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const first = await raiseCard(deps, raise({}), NOW);
    const second = await raiseCard(deps, raise({ sessionId: 's2' }), new Date(NOW.getTime() + 1000));
    const third = await raiseCard(deps, raise({}), new Date(NOW.getTime() + 2000));
    await raiseCard(deps, raise({ userId: 'u2' }), NOW);
    await cancelCards(deps, 's2', NOW);
    const ids = async (sessionId: string, pendingOnly: boolean) => (await listCards(store, { userId: 'u1', sessionId, pendingOnly })).cards.map((c) => c.id);
    expect(await ids('', false)).toEqual([third.id, second.id, first.id]);
    expect(await ids('', true)).toEqual([third.id, first.id]);
    expect(await ids('s1', false)).toEqual([third.id, first.id]);
    expect(await ids('s2', true)).toEqual([]);
    await expect(listCards(store, { userId: '', sessionId: '', pendingOnly: false })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it("reads one card of the user's by its id; another user's, an unknown id and a missing one are refused", async () => {
    const store = new InMemoryCardStore();
    const card = await raiseCard({ store, ids: sequentialIds() }, raise({}), NOW);
    expect(await getCard(store, { userId: 'u1', cardId: card.id })).toEqual(card);
    await expect(getCard(store, { userId: 'u2', cardId: card.id })).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    await expect(getCard(store, { userId: 'u1', cardId: 'card_unknown' })).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    await expect(getCard(store, { userId: 'u1', cardId: '' })).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it('lists the newest 500 and says there are more only when there are', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    // Ten pending a session, the most one holds: 51 sessions' worth, one past the listing.
    for (let n = 0; n < 501; n++) await raiseCard(deps, raise({ sessionId: `s${Math.floor(n / 10)}` }), new Date(NOW.getTime() + n * 1000));
    const listed = await listCards(store, { userId: 'u1', sessionId: '', pendingOnly: true });
    expect([listed.cards.length, listed.more]).toEqual([500, true]);
    expect(listed.cards.at(-1)!.sessionId).toBe('s0');
    store.cards.delete(listed.cards[0]!.id);
    expect(await listCards(store, { userId: 'u1', sessionId: '', pendingOnly: true })).toMatchObject({ more: false });
  });

  it('cancels only the session’s pending cards, one event each', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const a = await raiseCard(deps, raise({}), NOW);
    const b = await raiseCard(deps, raise({ kind: 'approval', options: [] }), NOW);
    const other = await raiseCard(deps, raise({ sessionId: 's2' }), NOW);
    const dismissed = { ...a, status: 'dismissed' as const, decidedAt: NOW };
    await store.saveDecision(dismissed, { eventId: 'e0', occurredAt: NOW, card: dismissed });
    const later = new Date(NOW.getTime() + 60_000);
    expect(await cancelCards(deps, 's1', later)).toBe(1);
    expect(await store.find(b.id)).toMatchObject({ status: 'cancelled', decidedAt: later });
    expect((await store.find(a.id))?.status).toBe('dismissed');
    expect((await store.find(other.id))?.status).toBe('pending');
    expect(store.events.map((e) => [e.card.id, e.card.status])).toEqual([
      [a.id, 'dismissed'],
      [b.id, 'cancelled'],
    ]);
    expect(await cancelCards(deps, 's1', later)).toBe(0);
    await expect(cancelCards(deps, '', later)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});

describe('raiseCard with a call key (an external session’s call)', () => {
  const keyed = (fields: Partial<RaiseCardInput> = {}) => raise({ kind: 'approval', options: [], callKey: 'fp-1', ...fields });
  const decide = async (store: InMemoryCardStore, cardId: string, status: 'allowed' | 'denied', at: Date) => {
    const card = { ...(await store.find(cardId))!, status, decidedAt: at };
    await store.saveDecision(card, { eventId: `e-${cardId}`, occurredAt: at, card });
  };

  it('answers the same call’s pending card instead of raising a second one', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const first = await raiseCard(deps, keyed(), NOW);
    const again = await raiseCard(deps, keyed(), new Date(NOW.getTime() + 60_000));
    expect(again).toEqual(first);
    expect(store.cards.size).toBe(1);
  });

  it('hands a decision to the same call once: the call after that asks anew', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const first = await raiseCard(deps, keyed(), NOW);
    await decide(store, first.id, 'allowed', NOW);
    expect(await raiseCard(deps, keyed(), NOW)).toMatchObject({ id: first.id, status: 'allowed' });
    expect(await raiseCard(deps, keyed(), NOW)).toMatchObject({ status: 'pending', id: expect.not.stringMatching(first.id) });
  });

  it('raises a new card for another call, another session, or a decision older than a day', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const first = await raiseCard(deps, keyed(), NOW);
    expect((await raiseCard(deps, keyed({ callKey: 'fp-2' }), NOW)).id).not.toBe(first.id);
    expect((await raiseCard(deps, keyed({ sessionId: 's2' }), NOW)).id).not.toBe(first.id);
    await decide(store, first.id, 'denied', NOW);
    const dayLater = new Date(NOW.getTime() + 86_400_000 + 1);
    expect(await raiseCard(deps, keyed(), dayLater)).toMatchObject({ status: 'pending', createdAt: dayLater });
  });

  it('never reuses a card raised without a key', async () => {
    const store = new InMemoryCardStore();
    const deps = { store, ids: sequentialIds() };
    const first = await raiseCard(deps, keyed({ callKey: '' }), NOW);
    expect((await raiseCard(deps, keyed({ callKey: '' }), NOW)).id).not.toBe(first.id);
  });
});
