// PublishRemoteAnswer over real gRPC against a real PostgreSQL and nats-server: the answer to an ask kept on a paired
// relay becomes question_answered on QUESTION_EVENTS for the asking conversation here, with via = that relay, once
// however often the pairing service reports it; a report missing who asked, the ask or the relay is refused.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock, SystemClock } from '@relay/clock';
import { QuestionAnswered } from '@relay/proto/relay/question/v1/events';
import { QuestionServiceClient, QuestionServiceService, type PublishRemoteAnswerRequest } from '@relay/proto/relay/question/v1/question_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams, QuestionEvents } from '@relay/proto/relay/bus-contracts';
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
const logger = createLogger({ name: 'remote-answer-test', level: 'silent' });

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let pool: pg.Pool;
let bus: Bus;
let outbox: OutboxRelay;
let decisions: PgCardDecisions;
let server: GrpcServer;
let client: QuestionServiceClient;
const stopping = new AbortController();

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  decisions = new PgCardDecisions({ connectionString: database.url, logger });
  await decisions.start();
  bus = await connectBus({ url: nats.url, name: 'remote-answer-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.QUESTION_EVENTS);
  outbox = new OutboxRelay({ db: prisma, bus, logger });
  outbox.start();
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
          clock: new ManualClock(NOW),
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
  client = createClient(QuestionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('pairing'));
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

const report = (fields: Partial<PublishRemoteAnswerRequest> = {}): PublishRemoteAnswerRequest => ({
  userId: 'u1',
  askingSessionId: 'c0de',
  askId: 'ask_remote00001',
  answer: 'after the review',
  choice: 'Wait',
  dismissed: false,
  via: 'build-box',
  ...fields,
});

/** What QUESTION_EVENTS holds once the outbox has published every row written so far. */
async function published(): Promise<{ id: string; data: ReturnType<typeof QuestionAnswered.fromJSON> }[]> {
  await vi.waitFor(async () => expect(await prisma.outboxMessage.count({ where: { publishedAt: null } })).toBe(0), { timeout: 10_000, interval: 50 });
  const { state } = await bus.jsm.streams.info(BusStreams.QUESTION_EVENTS.name);
  const consumer = await bus.js.consumers.get(BusStreams.QUESTION_EVENTS.name);
  const out: { id: string; data: ReturnType<typeof QuestionAnswered.fromJSON> }[] = [];
  for (let read = 0; read < state.messages; read++) {
    const message = await consumer.next({ expires: 5_000 });
    if (message === null) throw new Error(`QUESTION_EVENTS holds ${state.messages} messages; ${read} could be read`);
    if (message.subject === QuestionEvents.QUESTION_ANSWERED.subject)
      out.push({ id: message.headers?.get('Nats-Msg-Id') ?? '', data: QuestionAnswered.fromJSON(message.json()) });
  }
  return out;
}

it('publishes question_answered to the asking conversation, via the relay that kept the ask, once', async () => {
  expect(await callUnary(client, 'publishRemoteAnswer', report())).toEqual({ published: true });
  expect(await callUnary(client, 'publishRemoteAnswer', report())).toEqual({ published: false });
  await callUnary(client, 'publishRemoteAnswer', report({ askId: 'ask_remote00002', dismissed: true }));
  const events = await published();
  expect(
    events.map(({ id, data }) => ({
      id,
      questionId: data.questionId,
      askingSessionId: data.askingSessionId,
      aboutSessionId: data.aboutSessionId,
      answer: data.answer,
      choice: data.choice,
      dismissed: data.dismissed,
      via: data.via,
    })),
  ).toEqual([
    {
      id: 'remote-answer:build-box:ask_remote00001',
      questionId: 'ask_remote00001',
      askingSessionId: 'c0de',
      aboutSessionId: '',
      answer: 'after the review',
      choice: 'Wait',
      dismissed: false,
      via: 'build-box',
    },
    {
      id: 'remote-answer:build-box:ask_remote00002',
      questionId: 'ask_remote00002',
      askingSessionId: 'c0de',
      aboutSessionId: '',
      answer: '',
      choice: '',
      dismissed: true,
      via: 'build-box',
    },
  ]);
});

it('refuses a report without who asked, the ask or the relay, and publishes nothing for it', async () => {
  for (const fields of [{ askingSessionId: '' }, { askId: '' }, { via: '' }, { userId: '' }]) {
    await expect(callUnary(client, 'publishRemoteAnswer', report({ ...fields, askId: fields.askId ?? 'ask_refused' }))).rejects.toMatchObject({
      code: 'REMOTE_RELAY_INVALID_INPUT',
    });
  }
  expect(await prisma.outboxMessage.count({ where: { id: { contains: 'ask_refused' } } })).toBe(0);
});
