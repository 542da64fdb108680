// QuestionService over real gRPC, against a real PostgreSQL (LISTEN/NOTIFY included) and a real nats-server.
// The relay clock is a ManualClock handed to the wiring function, so waits run out when the test says so.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock, SystemClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import {
  CardDecider,
  CardKind,
  CardStatus,
  QuestionServiceClient,
  QuestionServiceService,
  type AwaitCardResponse,
  type RaiseCardRequest,
} from '@relay/proto/relay/question/v1/question_service';
import { callStream, callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { callersFor, createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams, QuestionEvents } from '@relay/proto/relay/bus-contracts';
import { nodeIds } from '../src/adapters/crypto/node-ids.ts';
import type { CardDecisions } from '../src/app/ports.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { questionGrpc } from '../src/adapters/grpc/question-grpc.ts';
import { PgCardDecisions } from '../src/adapters/store/pg-card-decisions.ts';
import { PgAskReads } from '../src/adapters/store/pg-ask-reads.ts';
import { PrismaAskStore } from '../src/adapters/store/prisma-ask-store.ts';
import { PrismaCardStore } from '../src/adapters/store/prisma-card-store.ts';
import { PrismaNotificationStore } from '../src/adapters/store/prisma-notification-store.ts';
import { notificationSenders } from '../src/adapters/http/notification-senders.ts';
import { toCardDecided } from '../src/adapters/grpc/wire/card-wire.ts';
import { toQuestionAnswered } from '../src/adapters/grpc/wire/ask-wire.ts';
import { allTurnEndsHeard } from './in-memory-card-store.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');
const logger = createLogger({ name: 'question-test', level: 'silent' });

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let pool: pg.Pool;
let bus: Bus;
let outbox: OutboxRelay;
let decisions: PgCardDecisions;
/** Card ids some AwaitCard is watching right now (a spy around the real LISTEN adapter). */
const watched = new Set<string>();
const clock = new ManualClock(NOW);
const stopping = new AbortController();
// `quiet` sends progress only every minute, so a prompt card proves the NOTIFY woke it; `chatty` every 20 ms.
let quiet: { server: GrpcServer; client: QuestionServiceClient };
let chatty: { server: GrpcServer; client: QuestionServiceClient };
let client: QuestionServiceClient;

async function serve(progressIntervalMs: number, stop: AbortSignal) {
  const spy: CardDecisions = {
    watch: (cardId, onDecided) => {
      watched.add(cardId);
      const unwatch = decisions.watch(cardId, onDecided);
      return () => {
        watched.delete(cardId);
        unwatch();
      };
    },
  };
  const server = await startGrpcServer({
    auth: credentials.auth('question'),
    port: 0,
    host: '127.0.0.1',
    services: [
      {
        definition: QuestionServiceService,
        callers: callersFor(QuestionServiceService, 'gateway', 'session'),
        implementation: questionGrpc({
          store: new PrismaCardStore(prisma, toCardDecided),
          // No turn-ended consumer runs here: no turn end is missed.
          turnEnds: allTurnEndsHeard,
          asks: new PrismaAskStore(prisma, toQuestionAnswered),
          askReads: new PgAskReads(pool),
          relayName: 'desk',
          ids: nodeIds,
          decisions: spy,
          clock,
          realTime: new SystemClock(),
          progressIntervalMs,
          stopping: stop,
          notifications: new PrismaNotificationStore(prisma),
          senders: notificationSenders({ vapidSubject: 'mailto:relay@example.com', logger }),
          logger,
        }),
      },
    ],
    logger,
  });
  return { server, client: createClient(QuestionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway')) };
}

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  decisions = new PgCardDecisions({ connectionString: database.url, logger, reconnectDelayMs: 50 });
  await decisions.start();
  bus = await connectBus({ url: nats.url, name: 'question-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.QUESTION_EVENTS);
  outbox = new OutboxRelay({ db: prisma, bus, logger });
  quiet = await serve(60_000, new AbortController().signal);
  chatty = await serve(20, stopping.signal);
  client = quiet.client;
});

afterAll(async () => {
  for (const side of [quiet, chatty]) {
    side?.client.close();
    await side?.server.shutdown();
  }
  await decisions?.stop();
  await outbox?.stop();
  await prisma?.$disconnect();
  await bus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

// A session holds at most 10 pending cards: each test starts with none waiting.
afterEach(async () => {
  await prisma.card.updateMany({ where: { status: 'pending' }, data: { status: 'cancelled' } });
});

const question = (fields: Partial<RaiseCardRequest> = {}): RaiseCardRequest => ({
  userId: 'u1',
  sessionId: 's1',
  kind: CardKind.CARD_KIND_QUESTION,
  title: 'Ship tonight?',
  lines: ['The review covers the index change.'],
  options: ['Tonight', 'Wait'],
  callKey: '',
  raiseId: '',
  ...fields,
});
const approval = (fields: Partial<RaiseCardRequest> = {}) => question({ kind: CardKind.CARD_KIND_APPROVAL, title: 'Start a session?', options: [], ...fields });

async function raise(request: RaiseCardRequest) {
  const { card } = await callUnary(client, 'raiseCard', request);
  return card!;
}

/** Decides as the user, or as the agent of `agentSessionId` when given. */
const decide = (
  cardId: string,
  decision: string,
  fields: { userId?: string; answer?: string; choices?: string[]; agentSessionId?: string; decidedBy?: CardDecider } = {},
) =>
  callUnary(client, 'decideCard', {
    userId: 'u1',
    cardId,
    decision,
    answer: '',
    choices: [],
    agentSessionId: '',
    decidedBy: fields.agentSessionId === undefined ? CardDecider.CARD_DECIDER_USER : CardDecider.CARD_DECIDER_AGENT,
    dryRun: false,
    ...fields,
  });

/** Reads an AwaitCard stream in the background. */
function listen(on: QuestionServiceClient, cardId: string, waitSeconds: number) {
  const events: AwaitCardResponse[] = [];
  const done = (async () => {
    for await (const event of callStream(on, 'awaitCard', { cardId, waitSeconds })) events.push(event);
    return events;
  })();
  return { events, done };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Everything a refusal must leave alone: every card and every outbox row. */
async function snapshot() {
  return {
    cards: await prisma.card.findMany({ orderBy: { id: 'asc' } }),
    outbox: await prisma.outboxMessage.findMany({ orderBy: { id: 'asc' } }),
  };
}

describe('RaiseCard', () => {
  it('stores a pending card stamped by the relay clock', async () => {
    const card = await raise(question());
    expect(card).toEqual({
      id: expect.stringMatching(/^card_[0-9a-z]{12}$/),
      userId: 'u1',
      sessionId: 's1',
      kind: CardKind.CARD_KIND_QUESTION,
      title: 'Ship tonight?',
      lines: ['The review covers the index change.'],
      options: ['Tonight', 'Wait'],
      status: CardStatus.CARD_STATUS_PENDING,
      answer: '',
      choices: [],
      createdAt: clock.now(),
      decidedAt: undefined,
    });
    expect(await prisma.card.findUnique({ where: { id: card.id } })).toMatchObject({ status: 'pending', kind: 'question', createdAt: clock.now() });
  });

  it.each([
    ['an unspecified kind', question({ kind: CardKind.CARD_KIND_UNSPECIFIED }), 'kind'],
    ['no title', question({ title: ' ' }), 'title'],
    ['options on an approval card', approval({ options: ['Yes'] }), 'options'],
    ['no session', question({ sessionId: '' }), 'session_id'],
  ])('refuses %s and stores nothing', async (_label, request, field) => {
    const before = await snapshot();
    const error = await refusal(raise(request));
    expect([error.code, error.kind, error.details['field']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', field]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('AwaitCard', () => {
  it('raise → await in parallel → decide: the waiting stream gets the decided card', async () => {
    const card = await raise(question());
    const stream = listen(client, card.id, 600);
    await vi.waitFor(() => expect(watched.has(card.id)).toBe(true));

    clock.advance(3_000);
    const { card: decided } = await decide(card.id, 'answer', { choices: ['Wait'], answer: 'after the review' });
    const events = await stream.done;
    // Woken by the NOTIFY: this server's progress comes only every minute.
    expect(events).toEqual([{ card: decided }]);
    expect(decided).toMatchObject({ status: CardStatus.CARD_STATUS_ANSWERED, choices: ['Wait'], answer: 'after the review', decidedAt: clock.now() });
    expect(watched.has(card.id)).toBe(false);
  });

  it('sends progress while it waits, then the card', async () => {
    const card = await raise(approval());
    const stream = listen(chatty.client, card.id, 600);
    await vi.waitFor(() => expect(stream.events.length).toBeGreaterThanOrEqual(2));
    await decide(card.id, 'allow');
    const events = await stream.done;
    expect(events.slice(0, -1).every((event) => event.progressSeconds === 0 && event.card === undefined)).toBe(true);
    expect(events.at(-1)?.card).toMatchObject({ id: card.id, status: CardStatus.CARD_STATUS_ALLOWED });
  });

  it('ends with the card still pending when wait_seconds of relay-clock time run out, and changes nothing', async () => {
    const card = await raise(approval());
    const stream = listen(client, card.id, 45);
    await vi.waitFor(() => expect(watched.has(card.id)).toBe(true));
    const before = await snapshot();
    clock.advance(45_000);
    expect(await stream.done).toEqual([{ card: { ...card } }]);
    expect(await snapshot()).toEqual(before);
  });

  it('answers a decided card at once', async () => {
    const card = await raise(approval());
    await decide(card.id, 'deny');
    expect((await listen(client, card.id, 600).done).map((event) => event.card?.status)).toEqual([CardStatus.CARD_STATUS_DENIED]);
  });

  it('refuses an unknown card with REMOTE_RELAY_NOT_FOUND', async () => {
    const error = await refusal(listen(client, 'card_nonexistent0', 5).done);
    expect([error.code, error.kind]).toEqual(['REMOTE_RELAY_NOT_FOUND', 'not_found']);
  });

  it('is woken by a cancel, with the card cancelled', async () => {
    const card = await raise(question({ sessionId: 's-cancel-wake' }));
    const stream = listen(client, card.id, 600);
    await vi.waitFor(() => expect(watched.has(card.id)).toBe(true));
    expect(await callUnary(client, 'cancelCards', { sessionId: 's-cancel-wake' })).toEqual({ cancelled: 1 });
    expect((await stream.done).map((event) => event.card?.status)).toEqual([CardStatus.CARD_STATUS_CANCELLED]);
  });
});

describe('RaiseCard', () => {
  it('keeps at most 10 cards waiting in a session, even when 15 are raised at once: the rest are refused and stored nowhere', async () => {
    const results = await Promise.allSettled(Array.from({ length: 15 }, (_, n) => raise(approval({ sessionId: 's-burst', title: `Run command ${n}?` }))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(refused.map((result) => (result.reason as AppError).code)).toEqual(Array(5).fill('REMOTE_RELAY_QUESTION_LIMIT'));
    expect(await prisma.card.count({ where: { sessionId: 's-burst' } })).toBe(10);
  });

  it('answers the card raised with the same raise_id, pending or decided, in that session only: a retried raise is one card', async () => {
    const [first, retried, raced] = await Promise.all([1, 2, 3].map(() => raise(approval({ sessionId: 's-raise', raiseId: 'msg_1:4' }))));
    expect([retried!.id, raced!.id]).toEqual([first!.id, first!.id]);
    await decide(first!.id, 'allow');
    expect(await raise(approval({ sessionId: 's-raise', raiseId: 'msg_1:4' }))).toMatchObject({ id: first!.id, status: CardStatus.CARD_STATUS_ALLOWED });
    const elsewhere = await raise(approval({ sessionId: 's-raise-2', raiseId: 'msg_1:4' }));
    expect(elsewhere.id).not.toBe(first!.id);
    expect(await raise(approval({ sessionId: 's-raise', raiseId: 'msg_1:5' }))).toMatchObject({ status: CardStatus.CARD_STATUS_PENDING });
    expect(await prisma.card.count({ where: { sessionId: 's-raise' } })).toBe(2);
    expect(await prisma.card.count({ where: { sessionId: 's-raise-2' } })).toBe(1);
  });
});

describe('DecideCard refusals change nothing', () => {
  it.each([
    ["another user's card", () => raise(approval()), (id: string) => decide(id, 'allow', { userId: 'u2' }), 'REMOTE_RELAY_NOT_FOUND'],
    ['an unknown card', () => raise(approval()), () => decide('card_000000000000', 'allow'), 'REMOTE_RELAY_NOT_FOUND'],
    ['an agent on an approval card', () => raise(approval()), (id: string) => decide(id, 'allow', { agentSessionId: 's2' }), 'REMOTE_RELAY_FORBIDDEN'],
    [
      'a decision that does not say who decides',
      () => raise(approval()),
      (id: string) => decide(id, 'allow', { decidedBy: CardDecider.CARD_DECIDER_UNSPECIFIED }),
      'REMOTE_RELAY_INVALID_INPUT',
    ],
    [
      'the user, claiming an agent session',
      () => raise(approval()),
      (id: string) => decide(id, 'allow', { agentSessionId: 's2', decidedBy: CardDecider.CARD_DECIDER_USER }),
      'REMOTE_RELAY_INVALID_INPUT',
    ],
    [
      'an agent without its session',
      () => raise(question()),
      (id: string) => decide(id, 'answer', { choices: ['Wait'], decidedBy: CardDecider.CARD_DECIDER_AGENT }),
      'REMOTE_RELAY_INVALID_INPUT',
    ],
    [
      "an agent on its own session's question",
      () => raise(question()),
      (id: string) => decide(id, 'answer', { choices: ['Wait'], agentSessionId: 's1' }),
      'REMOTE_RELAY_FORBIDDEN',
    ],
    ['allow on a question card', () => raise(question()), (id: string) => decide(id, 'allow'), 'REMOTE_RELAY_INVALID_INPUT'],
    ['a choice not offered', () => raise(question()), (id: string) => decide(id, 'answer', { choices: ['Tomorrow'] }), 'REMOTE_RELAY_INVALID_INPUT'],
    ['an empty answer', () => raise(question()), (id: string) => decide(id, 'answer'), 'REMOTE_RELAY_INVALID_INPUT'],
    [
      'a card already allowed',
      async () => {
        const card = await raise(approval());
        await decide(card.id, 'allow');
        return card;
      },
      (id: string) => decide(id, 'deny'),
      'REMOTE_RELAY_INVALID_INPUT',
    ],
  ])('refuses %s', async (_label, arrange, act, code) => {
    const card = await arrange();
    const before = await snapshot();
    const error = await refusal(act(card.id));
    expect(error.code).toBe(code);
    expect(await snapshot()).toEqual(before);
  });

  it('says what a decided card already is', async () => {
    const card = await raise(question());
    await decide(card.id, 'dismiss');
    const error = await refusal(decide(card.id, 'answer', { answer: 'late' }));
    expect([error.code, error.details['status']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', 'dismissed']);
    expect(error.message).toContain('already dismissed');
  });

  it('lets one of two racing decisions win, with one event', async () => {
    const card = await raise(approval());
    const outcomes = await Promise.allSettled([decide(card.id, 'allow'), decide(card.id, 'deny')]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect((lost.reason as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await prisma.outboxMessage.count({ where: { payload: { path: ['card', 'id'], equals: card.id } } })).toBe(1);
  });

  it("lets another session's agent answer a question card", async () => {
    const card = await raise(question());
    const { card: decided } = await decide(card.id, 'answer', { choices: ['Tonight'], agentSessionId: 's2' });
    expect(decided?.status).toBe(CardStatus.CARD_STATUS_ANSWERED);
  });
});

describe('ListCards and CancelCards', () => {
  it('lists newest first: all, one session, pending only; never another user’s', async () => {
    const first = await raise(question({ userId: 'lister', sessionId: 'a' }));
    clock.advance(1_000);
    const second = await raise(approval({ userId: 'lister', sessionId: 'b' }));
    clock.advance(1_000);
    const third = await raise(question({ userId: 'lister', sessionId: 'a' }));
    await raise(question({ userId: 'someone-else', sessionId: 'a' }));
    await decide(third.id, 'dismiss', { userId: 'lister' });
    const ids = async (sessionId: string, pendingOnly: boolean) =>
      (await callUnary(client, 'listCards', { userId: 'lister', sessionId, pendingOnly })).cards.map((card) => card.id);
    expect(await ids('', false)).toEqual([third.id, second.id, first.id]);
    expect(await ids('', true)).toEqual([second.id, first.id]);
    expect(await ids('a', false)).toEqual([third.id, first.id]);
    expect(await ids('a', true)).toEqual([first.id]);
  });

  it('cancels only the pending cards of the session, each with a card_decided event', async () => {
    const pending = await raise(question({ sessionId: 'ending' }));
    const decided = await raise(approval({ sessionId: 'ending' }));
    await decide(decided.id, 'allow');
    const elsewhere = await raise(question({ sessionId: 'staying' }));
    const eventsBefore = await prisma.outboxMessage.count();
    expect(await callUnary(client, 'cancelCards', { sessionId: 'ending' })).toEqual({ cancelled: 1 });
    expect(await prisma.card.findUnique({ where: { id: pending.id } })).toMatchObject({ status: 'cancelled', decidedAt: clock.now() });
    expect((await prisma.card.findUnique({ where: { id: decided.id } }))?.status).toBe('allowed');
    expect((await prisma.card.findUnique({ where: { id: elsewhere.id } }))?.status).toBe('pending');
    expect(await prisma.outboxMessage.count()).toBe(eventsBefore + 1);
    expect(await callUnary(client, 'cancelCards', { sessionId: 'ending' })).toEqual({ cancelled: 0 });
    expect((await refusal(callUnary(client, 'cancelCards', { sessionId: '' }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });
});

describe('events', () => {
  it('publishes card_decided on QUESTION_EVENTS with Nats-Msg-Id = the outbox id', async () => {
    const card = await raise(question({ sessionId: 'evented' }));
    clock.advance(5_000);
    await decide(card.id, 'answer', { choices: ['Tonight'] });
    const [row] = await prisma.outboxMessage.findMany({ where: { payload: { path: ['card', 'id'], equals: card.id } } });
    expect(row?.subject).toBe(QuestionEvents.CARD_DECIDED.subject);

    await outbox.flush();
    const message = await bus.jsm.streams.getMessage(BusStreams.QUESTION_EVENTS.name, { last_by_subj: QuestionEvents.CARD_DECIDED.subject });
    expect(message!.header.get('Nats-Msg-Id')).toBe(row!.id);
    expect(message!.json()).toEqual({
      eventId: row!.id,
      occurredAt: clock.now().toISOString(),
      card: {
        id: card.id,
        userId: 'u1',
        sessionId: 'evented',
        kind: 'CARD_KIND_QUESTION',
        title: 'Ship tonight?',
        lines: ['The review covers the index change.'],
        options: ['Tonight', 'Wait'],
        status: 'CARD_STATUS_ANSWERED',
        choices: ['Tonight'],
        createdAt: new Date(clock.now().getTime() - 5_000).toISOString(),
        decidedAt: clock.now().toISOString(),
      },
    });
  });
});

describe('the decision listener', () => {
  it('listens again after its connection is killed, and tells its watchers', async () => {
    const told: string[] = [];
    const unwatch = decisions.watch('card_listenagain', () => told.push('card_listenagain'));
    const killed = await prisma.$queryRawUnsafe<{ killed: boolean }[]>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    expect(killed.map((row) => row.killed)).toEqual([true]);
    await vi.waitFor(() => expect(told).toEqual(['card_listenagain']));
    // And it hears decisions again.
    const card = await raise(approval());
    const stream = listen(client, card.id, 600);
    await vi.waitFor(() => expect(watched.has(card.id)).toBe(true));
    await decide(card.id, 'allow');
    expect((await stream.done).map((event) => event.card?.status)).toEqual([CardStatus.CARD_STATUS_ALLOWED]);
    unwatch();
  });
});

describe('shutdown', () => {
  it('ends waiting streams with UNAVAILABLE so their callers await again', async () => {
    const card = await raise(approval());
    const stream = listen(chatty.client, card.id, 600);
    await vi.waitFor(() => expect(stream.events.length).toBeGreaterThan(0));
    stopping.abort();
    const error = await refusal(stream.done);
    expect([error.code, error.kind]).toEqual(['SERVICE_UNAVAILABLE', 'unavailable']);
    expect((await prisma.card.findUnique({ where: { id: card.id } }))?.status).toBe('pending');
  });
});
