// The cards user API on the real gateway app (Fastify on port 0), in front of a fake question service
// and the fake session service (for tokens), both over real gRPC on their own ports.
import { CardDecider, CardKind, CardStatus } from '@relay/proto/relay/question/v1/question_service';
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import { startFakeOwners, type FakeOwners } from './start-fake-owners.ts';
import { startFakeQuestionService, type FakeQuestionService } from './start-fake-question-service.ts';
import { fakeOwnerClients } from './start-gateway.ts';

const logger = createLogger({ name: 'cards-test', level: 'silent' });
let owners: FakeOwners;
let questions: FakeQuestionService;
let app: FastifyInstance;
let url: string;
let userToken: string;
let clients: { close(): void }[];

beforeAll(async () => {
  [owners, questions] = await Promise.all([startFakeOwners(logger), startFakeQuestionService(logger)]);
  const { close, ...owned } = fakeOwnerClients(owners, questions.address);
  clients = [{ close }];
  app = buildApp({ relayName: 'desk', publicUrl: 'https://desk.example.com', openUrlBase: undefined, ...owned, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP');
  url = `http://127.0.0.1:${address.port}`;
  userToken = owners.addUser('u1');
});

afterAll(async () => {
  await app?.close();
  for (const client of clients ?? []) client.close();
  await Promise.all([owners?.stop(), questions?.stop()]);
});

beforeEach(() => {
  questions.cards.length = 0;
  questions.listed.length = 0;
  questions.decided.length = 0;
  questions.refusals.clear();
  questions.broken = false;
});

async function api(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const decide = (id: string, body: unknown, token = userToken) => api(`/api/v1/cards/${id}`, { method: 'POST', token, body });

describe('GET /api/v1/cards', () => {
  it("lists the user's cards newest first, in the API's shape", async () => {
    const older = questions.add({ kind: CardKind.CARD_KIND_APPROVAL, title: 'Start a session?', lines: ['Model: script-1'], options: [] });
    const newer = questions.add({
      sessionId: 's2',
      status: CardStatus.CARD_STATUS_ANSWERED,
      answer: 'ok',
      choices: ['Wait'],
      decidedAt: new Date('2026-11-30T11:00:00Z'),
    });
    questions.add({ userId: 'u2' });
    const { status, body } = await api('/api/v1/cards', { token: userToken });
    expect(status).toBe(200);
    expect(body).toEqual({
      cards: [
        {
          id: newer.id,
          sessionId: 's2',
          kind: 'question',
          title: 'Ship tonight?',
          lines: [],
          options: ['Tonight', 'Wait'],
          status: 'answered',
          answer: 'ok',
          choices: ['Wait'],
          createdAt: newer.createdAt!.toISOString(),
          decidedAt: '2026-11-30T11:00:00.000Z',
        },
        {
          id: older.id,
          sessionId: 's1',
          kind: 'approval',
          title: 'Start a session?',
          lines: ['Model: script-1'],
          options: [],
          status: 'pending',
          answer: '',
          choices: [],
          createdAt: older.createdAt!.toISOString(),
          decidedAt: null,
        },
      ],
      more: false,
    });
    expect(questions.listed).toEqual([{ userId: 'u1', sessionId: '', pendingOnly: false }]);
  });

  it.each([
    ['?session=s2&pending=1', { sessionId: 's2', pendingOnly: true }],
    ['?pending=true', { sessionId: '', pendingOnly: true }],
    ['?pending=0', { sessionId: '', pendingOnly: false }],
    ['?session=', { sessionId: '', pendingOnly: false }],
  ])('passes %s on', async (query, expected) => {
    expect((await api(`/api/v1/cards${query}`, { token: userToken })).status).toBe(200);
    expect(questions.listed).toEqual([{ userId: 'u1', ...expected }]);
  });

  it('answers 400 for a bad pending, without asking the question service', async () => {
    const { status, body } = await api('/api/v1/cards?pending=yes', { token: userToken });
    expect([status, body.code]).toEqual([400, 'REMOTE_RELAY_INVALID_INPUT']);
    expect(questions.listed).toEqual([]);
  });
});

describe('GET /api/v1/cards/:id', () => {
  it("reads one card of the user's by its id, without the listing; another user's is 404 like none", async () => {
    const card = questions.add({ userId: 'u1', sessionId: 's1', title: 'Start a session?' });
    const theirs = questions.add({ userId: 'u2', sessionId: 's9', title: 'Theirs' });
    const { status, body } = await api(`/api/v1/cards/${card.id}`, { token: userToken });
    expect(status).toBe(200);
    expect(body.card).toMatchObject({ id: card.id, sessionId: 's1', title: 'Start a session?', status: 'pending' });
    expect(questions.listed).toEqual([]);
    for (const id of [theirs.id, 'card_unknown']) {
      expect(await api(`/api/v1/cards/${id}`, { token: userToken })).toMatchObject({ status: 404, body: { code: 'REMOTE_RELAY_NOT_FOUND' } });
    }
  });
});

describe('POST /api/v1/cards/:id', () => {
  it('allows an approval card as the user (the one path that does) and answers the card', async () => {
    const card = questions.add({ kind: CardKind.CARD_KIND_APPROVAL, options: [] });
    const { status, body } = await decide(card.id, { decision: 'allow' });
    expect(status).toBe(200);
    expect(body.card).toMatchObject({ id: card.id, kind: 'approval', status: 'allowed', decidedAt: '2026-11-30T10:05:00.000Z' });
    expect(questions.decided).toEqual([
      {
        userId: 'u1',
        cardId: card.id,
        decision: 'allow',
        answer: '',
        choices: [],
        agentSessionId: '',
        decidedBy: CardDecider.CARD_DECIDER_USER,
        dryRun: false,
      },
    ]);
  });

  it('answers a question card with text and choices', async () => {
    const card = questions.add({});
    const { status, body } = await decide(card.id, { decision: 'answer', answer: 'after the review', choices: ['Wait'] });
    expect(status).toBe(200);
    expect(body.card).toMatchObject({ status: 'answered', answer: 'after the review', choices: ['Wait'] });
    expect(questions.decided[0]).toMatchObject({ decision: 'answer', answer: 'after the review', choices: ['Wait'] });
  });

  it.each([
    ['no body', undefined],
    ['an unknown decision', { decision: 'maybe' }],
    ['no decision', { answer: 'x' }],
    ['choices that are not strings', { decision: 'answer', choices: [1] }],
    ['an answer that is not a string', { decision: 'answer', answer: 5 }],
  ])('answers 400 for %s, without asking the question service', async (_label, body) => {
    const card = questions.add({});
    const answer = await decide(card.id, body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(typeof answer.body.error).toBe('string');
    expect(questions.decided).toEqual([]);
    expect(questions.cards[0]?.status).toBe(CardStatus.CARD_STATUS_PENDING);
  });

  it.each([
    ['404 for a card that is not the user’s', () => questions.add({ userId: 'u2' }), 404, 'REMOTE_RELAY_NOT_FOUND'],
    ['400 for a decided card', () => questions.add({ status: CardStatus.CARD_STATUS_DISMISSED }), 400, 'REMOTE_RELAY_INVALID_INPUT'],
    [
      "403 for the question service's FORBIDDEN",
      () => {
        const card = questions.add({});
        questions.refusals.set(card.id, new AppError('REMOTE_RELAY_FORBIDDEN', 'permission_denied', 'not yours to decide'));
        return card;
      },
      403,
      'REMOTE_RELAY_FORBIDDEN',
    ],
  ])('answers %s, and nothing changes', async (_label, arrange, status, code) => {
    const card = arrange();
    const before = structuredClone(questions.cards);
    const answer = await decide(card.id, { decision: 'answer', choices: ['Wait'] });
    expect([answer.status, answer.body.code]).toEqual([status, code]);
    expect(typeof answer.body.error).toBe('string');
    expect(questions.cards).toEqual(before);
  });

  it('hides an internal fault behind 500 REMOTE_RELAY_INTERNAL', async () => {
    const card = questions.add({});
    questions.broken = true;
    const answer = await decide(card.id, { decision: 'dismiss' });
    expect(answer).toEqual({ status: 500, body: { code: 'REMOTE_RELAY_INTERNAL', error: 'internal error' } });
  });
});

describe('who may use the cards API', () => {
  it('answers 401 without a token or with an unknown one', async () => {
    for (const token of [undefined, 'nonsense']) {
      const answer = await api('/api/v1/cards', token === undefined ? {} : { token });
      expect([answer.status, answer.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    }
  });

  it("answers 403 to a session's token: cards are the user's to decide", async () => {
    const { token } = owners.addAgentSession('u1');
    const card = questions.add({});
    expect((await api('/api/v1/cards', { token })).status).toBe(403);
    const answer = await decide(card.id, { decision: 'dismiss' }, token);
    expect([answer.status, answer.body.code]).toEqual([403, 'REMOTE_RELAY_FORBIDDEN']);
    expect(questions.decided).toEqual([]);
    expect(questions.listed).toEqual([]);
  });
});
