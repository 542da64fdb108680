// Asks over real gRPC against a real PostgreSQL and a real nats-server: the limits, listings, withdraw, the user's
// answer with its question_answered event on QUESTION_EVENTS, and asks ending when their session is archived.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock, SystemClock } from '@relay/clock';
import { AskStatus, QuestionServiceClient, QuestionServiceService, type AskRequest } from '@relay/proto/relay/question/v1/question_service';
import { SessionArchived } from '@relay/proto/relay/session/v1/events';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams, QuestionEvents } from '@relay/proto/relay/bus-contracts';
import { startSessionArchivedConsumer } from '../src/adapters/bus/session-archived-consumer.ts';
import { nodeIds } from '../src/adapters/crypto/node-ids.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { QUESTION_CALLERS } from '../src/adapters/grpc/question-callers.ts';
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
const logger = createLogger({ name: 'asks-test', level: 'silent' });

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let pool: pg.Pool;
let bus: Bus;
let outbox: OutboxRelay;
let decisions: PgCardDecisions;
let server: GrpcServer;
let client: QuestionServiceClient;
const clock = new ManualClock(NOW);
const stopping = new AbortController();

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  decisions = new PgCardDecisions({ connectionString: database.url, logger });
  await decisions.start();
  bus = await connectBus({ url: nats.url, name: 'asks-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.QUESTION_EVENTS);
  await ensureStream(bus, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
  outbox = new OutboxRelay({ db: prisma, bus, logger });
  server = await startGrpcServer({
    auth: credentials.auth('question'),
    port: 0,
    host: '127.0.0.1',
    services: [
      {
        definition: QuestionServiceService,
        callers: QUESTION_CALLERS,
        implementation: questionGrpc({
          store: new PrismaCardStore(prisma, toCardDecided),
          // No turn-ended consumer runs here: no turn end is missed.
          turnEnds: allTurnEndsHeard,
          asks: new PrismaAskStore(prisma, toQuestionAnswered),
          askReads: new PgAskReads(pool),
          relayName: 'desk',
          ids: nodeIds,
          decisions,
          clock,
          realTime: new SystemClock(),
          progressIntervalMs: 60_000,
          stopping: stopping.signal,
          notifications: new PrismaNotificationStore(prisma),
          senders: notificationSenders({ vapidSubject: 'mailto:relay@example.com', logger }),
          logger,
        }),
      },
    ],
    logger,
  });
  client = createClient(QuestionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway'));
});

afterAll(async () => {
  stopping.abort();
  client?.close();
  await server?.shutdown();
  await decisions?.stop();
  await outbox?.stop();
  await prisma?.$disconnect();
  await bus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

const request = (fields: Partial<AskRequest> = {}): AskRequest => ({
  userId: 'u1',
  askingSessionId: 'asker',
  aboutSessionId: '',
  question: 'Ship tonight?',
  options: ['Tonight', 'Wait'],
  recommendation: 'Wait',
  detail: '',
  dryRun: false,
  ...fields,
});

const ask = async (fields: Partial<AskRequest> = {}) => (await callUnary(client, 'ask', request(fields))).ask!;

describe('Ask', () => {
  it('stores a pending ask_… about the asking conversation', async () => {
    const asked = await ask();
    expect(asked).toMatchObject({
      id: expect.stringMatching(/^ask_[0-9a-z]{12}$/),
      status: AskStatus.ASK_STATUS_PENDING,
      aboutSessionId: 'asker',
      createdAt: NOW,
    });
    expect(await prisma.ask.findUnique({ where: { id: asked.id } })).toMatchObject({ status: 'pending', askingSessionId: 'asker' });
  });

  it('a dry run stores nothing', async () => {
    const before = await prisma.ask.count();
    await callUnary(client, 'ask', request({ dryRun: true }));
    expect(await prisma.ask.count()).toBe(before);
  });

  it('refuses the 21st pending ask of a conversation, and of a session asked about, storing nothing', async () => {
    for (let i = 0; i < 20; i++) await ask({ askingSessionId: 'busy' });
    const before = await prisma.ask.count();
    await expect(callUnary(client, 'ask', request({ askingSessionId: 'busy' }))).rejects.toMatchObject({ code: 'REMOTE_RELAY_QUESTION_LIMIT' });
    for (let i = 0; i < 20; i++) await ask({ askingSessionId: `helper-${i}`, aboutSessionId: 'popular' });
    await expect(callUnary(client, 'ask', request({ askingSessionId: 'one-more', aboutSessionId: 'popular' }))).rejects.toMatchObject({
      code: 'REMOTE_RELAY_QUESTION_LIMIT',
    });
    expect(await prisma.ask.count()).toBe(before + 20);
  });
});

describe('AnswerAsk and ListAsks', () => {
  it('answers, publishes question_answered on QUESTION_EVENTS, and lists the ask answered', async () => {
    const asked = await ask({ askingSessionId: 'answered-conv', aboutSessionId: 'other' });
    const { ask: answered } = await callUnary(client, 'answerAsk', {
      userId: 'u1',
      askId: asked.id,
      decision: 'answer',
      answer: 'after review',
      choice: 'Wait',
      via: '',
    });
    expect(answered).toMatchObject({ status: AskStatus.ASK_STATUS_ANSWERED, choice: 'Wait', answer: 'after review', via: 'desk', endedAt: NOW });

    await outbox.flush();
    const message = await bus.jsm.streams.getMessage(BusStreams.QUESTION_EVENTS.name, { last_by_subj: QuestionEvents.QUESTION_ANSWERED.subject });
    expect(message?.json()).toMatchObject({
      questionId: asked.id,
      askingSessionId: 'answered-conv',
      aboutSessionId: 'other',
      userId: 'u1',
      answer: 'after review',
      choice: 'Wait',
      via: 'desk',
    });

    const { asks } = await callUnary(client, 'listAsks', { userId: 'u1', askingSessionId: 'answered-conv', aboutSessionId: '', pendingOnly: false });
    expect(asks.map((one) => [one.id, one.status])).toEqual([[asked.id, AskStatus.ASK_STATUS_ANSWERED]]);
    const about = await callUnary(client, 'listAsks', { userId: 'u1', askingSessionId: '', aboutSessionId: 'other', pendingOnly: false });
    expect(about.asks.map((one) => one.id)).toEqual([asked.id]);
    const inbox = await callUnary(client, 'listAsks', { userId: 'u1', askingSessionId: '', aboutSessionId: '', pendingOnly: false });
    expect(inbox.asks.map((one) => one.id)).not.toContain(asked.id);
  });

  it("hides another user's asks: not found to answer, absent from listings", async () => {
    const asked = await ask({ askingSessionId: 'private' });
    await expect(callUnary(client, 'answerAsk', { userId: 'u2', askId: asked.id, decision: 'dismiss', answer: '', choice: '', via: '' })).rejects.toMatchObject(
      {
        code: 'REMOTE_RELAY_NOT_FOUND',
      },
    );
    await expect(callUnary(client, 'withdrawAsk', { userId: 'u2', askingSessionId: 'private', askId: asked.id })).rejects.toMatchObject({
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
    const listed = await callUnary(client, 'listAsks', { userId: 'u2', askingSessionId: 'private', aboutSessionId: '', pendingOnly: false });
    expect(listed.asks).toEqual([]);
    expect((await prisma.ask.findUnique({ where: { id: asked.id } }))?.status).toBe('pending');
  });

  it('lists the newest 500 asks and says there are more only when there are', async () => {
    const at = (n: number) => new Date(NOW.getTime() - n * 1000);
    await prisma.ask.createMany({
      data: Array.from({ length: 501 }, (_, n) => ({
        id: `many-${n}`,
        userId: 'many',
        askingSessionId: `c${n}`,
        aboutSessionId: `c${n}`,
        question: 'Go?',
        createdAt: at(n),
      })),
    });
    const inbox = await callUnary(client, 'listAsks', { userId: 'many', askingSessionId: '', aboutSessionId: '', pendingOnly: true });
    expect([inbox.asks.length, inbox.more, inbox.asks.at(-1)?.id]).toEqual([500, true, 'many-499']);
    await prisma.ask.delete({ where: { id: 'many-0' } });
    const all = await callUnary(client, 'listAsks', { userId: 'many', askingSessionId: '', aboutSessionId: '', pendingOnly: true });
    expect([all.asks.length, all.more]).toEqual([500, false]);
  });

  it('drops ended asks from the listing after a day', async () => {
    const asked = await ask({ askingSessionId: 'old' });
    await callUnary(client, 'withdrawAsk', { userId: 'u1', askingSessionId: 'old', askId: asked.id });
    clock.advance(24 * 60 * 60 * 1000 + 1);
    const { asks } = await callUnary(client, 'listAsks', { userId: 'u1', askingSessionId: 'old', aboutSessionId: '', pendingOnly: false });
    expect(asks).toEqual([]);
  });
});

describe('session archived', () => {
  it('ends the pending asks the session asked or that are about it, telling nobody', async () => {
    const own = await ask({ askingSessionId: 'archived-conv' });
    const about = await ask({ askingSessionId: 'someone', aboutSessionId: 'archived-conv' });
    const elsewhere = await ask({ askingSessionId: 'someone', aboutSessionId: 'staying' });
    const events = await prisma.outboxMessage.count();
    const consumer = await startSessionArchivedConsumer(bus, { asks: new PrismaAskStore(prisma, toQuestionAnswered), clock, logger }, stopping.signal);
    try {
      const event = SessionArchived.toJSON({ eventId: 'evt-archived-1', occurredAt: clock.now(), sessionId: 'archived-conv', userId: 'u1' });
      await bus.js.publish('relay.session.v1.archived', JSON.stringify(event), { msgID: 'evt-archived-1' });
      await expect.poll(async () => (await prisma.ask.findUnique({ where: { id: own.id } }))?.status, { timeout: 10_000 }).toBe('ended');
      expect((await prisma.ask.findUnique({ where: { id: about.id } }))?.status).toBe('ended');
      expect((await prisma.ask.findUnique({ where: { id: elsewhere.id } }))?.status).toBe('pending');
      expect(await prisma.outboxMessage.count()).toBe(events);
    } finally {
      await consumer?.stop();
    }
  });
});
