import { describe, expect, it } from 'vitest';
import { AppError } from '@relay/errors';
import { decideCard } from '../src/app/decide-card.ts';
import { applyDecision, type DecideCardInput } from '../src/domain/cards.ts';
import type { Card } from '../src/domain/entities.ts';
import { InMemoryCardStore, sequentialIds, allTurnEndsHeard } from './in-memory-card-store.ts';

const CREATED = new Date('2026-11-30T10:00:00.000Z');
const NOW = new Date('2026-11-30T10:05:00.000Z');

const approval: Card = {
  id: 'card_approval0',
  userId: 'u1',
  sessionId: 's1',
  kind: 'approval',
  title: 'Start a session?',
  lines: ['Model: script-1'],
  options: [],
  status: 'pending',
  answer: '',
  choices: [],
  createdAt: CREATED,
  decidedAt: undefined,
  callKey: '',
};
const question: Card = { ...approval, id: 'card_question0', kind: 'question', title: 'Ship tonight?', lines: [], options: ['Tonight', 'Wait'] };
const openQuestion: Card = { ...question, id: 'card_openqstn0', options: [] };

const input = (fields: Partial<DecideCardInput>): DecideCardInput => ({
  userId: 'u1',
  cardId: '',
  decision: 'allow',
  answer: '',
  choices: [],
  by: { kind: 'user' },
  ...fields,
});

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('applyDecision', () => {
  it.each([
    ['allow', 'allowed'],
    ['deny', 'denied'],
  ] as const)('an approval card takes %s → %s, stamped now', (decision, status) => {
    expect(applyDecision(approval, input({ decision }), NOW)).toEqual({ ...approval, status, decidedAt: NOW });
  });

  it('a question card takes dismiss', () => {
    expect(applyDecision(question, input({ decision: 'dismiss' }), NOW)).toEqual({ ...question, status: 'dismissed', decidedAt: NOW });
  });

  it.each([
    ['an answer', { answer: '  Tonight, after the review  ' }, { answer: 'Tonight, after the review', choices: [] }],
    ['choices', { choices: ['Wait'] }, { answer: '', choices: ['Wait'] }],
    ['both, with repeated choices once', { answer: 'why not', choices: ['Wait', 'Tonight', 'Wait'] }, { answer: 'why not', choices: ['Wait', 'Tonight'] }],
  ])('a question card takes answer with %s', (_label, fields, expected) => {
    expect(applyDecision(question, input({ decision: 'answer', ...fields }), NOW)).toEqual({ ...question, status: 'answered', ...expected, decidedAt: NOW });
  });

  it('choices are free on a card without options', () => {
    expect(applyDecision(openQuestion, input({ decision: 'answer', choices: ['Anything'] }), NOW)).toMatchObject({ status: 'answered', choices: ['Anything'] });
  });

  it.each([
    ['another user', approval, input({ userId: 'u2' }), 'REMOTE_RELAY_NOT_FOUND'],
    ['an agent, an approval card', approval, input({ by: { kind: 'agent', sessionId: 's9' } }), 'REMOTE_RELAY_FORBIDDEN'],
    [
      "an agent, its own session's question",
      question,
      input({ decision: 'answer', answer: 'x', by: { kind: 'agent', sessionId: 's1' } }),
      'REMOTE_RELAY_FORBIDDEN',
    ],
    ['allow on a question card', question, input({ decision: 'allow' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['answer on an approval card', approval, input({ decision: 'answer', answer: 'yes' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an unknown decision', approval, input({ decision: 'maybe' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an empty decision', approval, input({ decision: '' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an answer without text or choices', question, input({ decision: 'answer', answer: '   ' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['a choice not among the options', question, input({ decision: 'answer', choices: ['Tomorrow'] }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an empty choice', openQuestion, input({ decision: 'answer', choices: [' '] }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an answer that is too long', question, input({ decision: 'answer', answer: 'x'.repeat(10_001) }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['allow with an answer', approval, input({ answer: 'sure' }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['dismiss with choices', question, input({ decision: 'dismiss', choices: ['Wait'] }), 'REMOTE_RELAY_INVALID_INPUT'],
  ])('refuses %s', (_label, card, decision, code) => {
    expect(refusal(() => applyDecision(card, decision, NOW)).code).toBe(code);
  });

  it.each(['allowed', 'denied', 'answered', 'dismissed'] as const)('refuses a card already %s, saying so', (status) => {
    const error = refusal(() => applyDecision({ ...approval, status, decidedAt: CREATED }, input({ decision: 'deny' }), NOW));
    expect([error.code, error.details['status']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', status]);
    expect(error.message).toContain(`already ${status}`);
  });

  it('refuses a withdrawn (cancelled) card with REMOTE_RELAY_NO_ACTIVE_TURN: its turn is gone', () => {
    const error = refusal(() => applyDecision({ ...approval, status: 'cancelled', decidedAt: CREATED }, input({ decision: 'deny' }), NOW));
    expect([error.code, error.details['status']]).toEqual(['REMOTE_RELAY_NO_ACTIVE_TURN', 'cancelled']);
    expect(error.message).toContain('withdrawn');
  });

  it('lets another session’s agent answer a question card', () => {
    expect(applyDecision(question, input({ decision: 'answer', choices: ['Wait'], by: { kind: 'agent', sessionId: 's2' } }), NOW).status).toBe('answered');
  });

  it('tells another user’s card apart from nothing: both are not found, before any other rule', () => {
    const decided = { ...approval, status: 'allowed' as const };
    expect(refusal(() => applyDecision(decided, input({ userId: 'u2', decision: 'nonsense' }), NOW)).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it('refuses an agent before saying a card is decided', () => {
    const decided = { ...approval, status: 'allowed' as const };
    expect(refusal(() => applyDecision(decided, input({ by: { kind: 'agent', sessionId: 's2' } }), NOW)).code).toBe('REMOTE_RELAY_FORBIDDEN');
  });
});

describe('decideCard', () => {
  it('stores the decision with its card_decided event', async () => {
    const store = new InMemoryCardStore();
    await store.create(question);
    const decided = await decideCard(
      { store, ids: sequentialIds(), turnEnds: allTurnEndsHeard },
      input({ cardId: question.id, decision: 'answer', choices: ['Tonight'] }),
      NOW,
    );
    expect(decided).toMatchObject({ status: 'answered', choices: ['Tonight'], decidedAt: NOW });
    expect(await store.find(question.id)).toEqual(decided);
    expect(store.events).toEqual([{ eventId: 'evt_1', occurredAt: NOW, card: decided }]);
  });

  it('answers not found for an unknown card, and nothing changes', async () => {
    const store = new InMemoryCardStore();
    await expect(decideCard({ store, ids: sequentialIds(), turnEnds: allTurnEndsHeard }, input({ cardId: 'card_nope' }), NOW)).rejects.toMatchObject({
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
    expect(store.events).toEqual([]);
  });

  it('reports the winner when another decision lands between the read and the write', async () => {
    const store = new InMemoryCardStore();
    await store.create(approval);
    const find = store.find.bind(store);
    let reads = 0;
    // The second read (after the lost write) sees what the other decision stored.
    store.find = async (id) => (++reads === 1 ? find(id) : { ...(await find(id))!, status: 'denied' });
    store.saveDecision = async () => false;
    await expect(decideCard({ store, ids: sequentialIds(), turnEnds: allTurnEndsHeard }, input({ cardId: approval.id }), NOW)).rejects.toMatchObject({
      code: 'REMOTE_RELAY_INVALID_INPUT',
      details: { status: 'denied' },
    });
  });

  it.each([
    ['user_id', input({ userId: '', cardId: 'card_x' })],
    ['card_id', input({ cardId: '' })],
  ])('requires %s', async (field, request) => {
    await expect(decideCard({ store: new InMemoryCardStore(), ids: sequentialIds(), turnEnds: allTurnEndsHeard }, request, NOW)).rejects.toMatchObject({
      code: 'REMOTE_RELAY_INVALID_INPUT',
      details: { field },
    });
  });
});
