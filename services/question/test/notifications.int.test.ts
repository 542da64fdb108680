// Notifications (docs/adr/0031) over real gRPC, a real PostgreSQL and a real nats-server: a new card or ask reaches
// the user's webhook (Slack-compatible {"text": …}) and each browser they subscribed to Web Push, as their per-kind
// settings say. A local HTTP server plays the webhook receiver and the push service: it checks the push request is
// a valid Web Push request (aes128gcm, TTL, VAPID auth whose JWT verifies with the relay's public key) and decrypts
// its payload with the browser's keys. A webhook that fails is tried again by the durable consumer, across a restart.
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { decrypt } from 'http_ece';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, ensureStream, OutboxRelay, type Bus, type Consumer } from '@relay/bus';
import { ManualClock, SystemClock } from '@relay/clock';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { CardKind, QuestionServiceClient, QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { startNotificationsConsumer } from '../src/adapters/bus/notifications-consumer.ts';
import { nodeIds } from '../src/adapters/crypto/node-ids.ts';
import { QUESTION_CALLERS } from '../src/adapters/grpc/question-callers.ts';
import { questionGrpc } from '../src/adapters/grpc/question-grpc.ts';
import { toAskCreated, toQuestionAnswered } from '../src/adapters/grpc/wire/ask-wire.ts';
import { toCardDecided, toCardRaised } from '../src/adapters/grpc/wire/card-wire.ts';
import { notificationSenders } from '../src/adapters/http/notification-senders.ts';
import { PgAskReads } from '../src/adapters/store/pg-ask-reads.ts';
import { PgCardDecisions } from '../src/adapters/store/pg-card-decisions.ts';
import { PrismaAskStore } from '../src/adapters/store/prisma-ask-store.ts';
import { PrismaCardStore } from '../src/adapters/store/prisma-card-store.ts';
import { PrismaNotificationStore } from '../src/adapters/store/prisma-notification-store.ts';
import { notifyPerson, type NotificationSenders } from '../src/app/notifications.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { allTurnEndsHeard } from './in-memory-card-store.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const logger = createLogger({ name: 'notifications-test', level: 'silent' });

/** A request the local server received. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let pool: pg.Pool;
let bus: Bus;
let outbox: OutboxRelay;
let decisions: PgCardDecisions;
let server: GrpcServer;
let client: QuestionServiceClient;
let receiver: Server;
let receiverUrl: string;
let store: PrismaNotificationStore;
const received: Received[] = [];
/** The statuses the receiver answers, in turn, per path; 201 once a path's list is used up. */
const answers = new Map<string, number[]>();
const clock = new ManualClock(NOW);
const stopping = new AbortController();
const senders = notificationSenders({ vapidSubject: 'mailto:relay@example.com', logger });
const deps = () => ({ notifications: store, senders, relayName: 'desk', clock, logger });

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  store = new PrismaNotificationStore(prisma);
  decisions = new PgCardDecisions({ connectionString: database.url, logger });
  await decisions.start();
  bus = await connectBus({ url: nats.url, name: 'notifications-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.QUESTION_EVENTS);
  outbox = new OutboxRelay({ db: prisma, bus, logger, pollIntervalMs: 50 });
  outbox.start();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.statusCode = answers.get(request.url ?? '')?.shift() ?? 201;
      response.end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startGrpcServer({
    auth: credentials.auth('question'),
    port: 0,
    host: '127.0.0.1',
    services: [
      {
        definition: QuestionServiceService,
        callers: QUESTION_CALLERS,
        implementation: questionGrpc({
          store: new PrismaCardStore(prisma, toCardDecided, toCardRaised),
          turnEnds: allTurnEndsHeard,
          asks: new PrismaAskStore(prisma, toQuestionAnswered, toAskCreated),
          askReads: new PgAskReads(pool),
          relayName: 'desk',
          ids: nodeIds,
          decisions,
          clock,
          realTime: new SystemClock(),
          progressIntervalMs: 60_000,
          stopping: stopping.signal,
          notifications: store,
          senders,
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
  receiver?.close();
  await prisma?.$disconnect();
  await bus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 600; tries++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const raiseCard = (userId: string, title: string) =>
  callUnary(client, 'raiseCard', {
    userId,
    sessionId: 's1',
    kind: CardKind.CARD_KIND_QUESTION,
    title,
    lines: [],
    options: ['Yes', 'No'],
    callKey: '',
    raiseId: '',
  });
const settingsOf = async (userId: string) => (await callUnary(client, 'getNotificationSettings', { userId })).settings!;
const base64url = (buffer: Buffer) => buffer.toString('base64url');

describe('settings', () => {
  it('start with every kind on and no webhook, carry the VAPID public key kept from the first start, and refuse a webhook that is not http(s)', async () => {
    const first = await settingsOf('u-settings');
    expect(first).toMatchObject({ webhookUrl: '', cards: true, asks: true, pushSubscriptions: 0 });
    // An uncompressed P-256 point, base64url: 65 bytes.
    expect(Buffer.from(first.vapidPublicKey, 'base64url')).toHaveLength(65);
    expect((await settingsOf('u-other')).vapidPublicKey).toBe(first.vapidPublicKey);
    expect((await prisma.vapidKeys.findMany()).map((row) => row.publicKey)).toEqual([first.vapidPublicKey]);

    const refused = await callUnary(client, 'updateNotificationSettings', { userId: 'u-settings', webhookUrl: 'ftp://example.com/x' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
    const changed = await callUnary(client, 'updateNotificationSettings', { userId: 'u-settings', webhookUrl: ' https://hooks.example.com/T1 ', asks: false });
    expect(changed.settings).toMatchObject({ webhookUrl: 'https://hooks.example.com/T1', cards: true, asks: false });
    expect((await callUnary(client, 'updateNotificationSettings', { userId: 'u-settings', cards: false })).settings).toMatchObject({
      webhookUrl: 'https://hooks.example.com/T1',
      cards: false,
      asks: false,
    });
  });
});

describe('the webhook', () => {
  it('gets {"text": …} for a new card; a failed post is tried again by the durable consumer after a restart, once it gets through', async () => {
    await callUnary(client, 'updateNotificationSettings', { userId: 'u-hook', webhookUrl: `${receiverUrl}/hook` });
    answers.set('/hook', [500]);
    let consumer: Consumer = await startNotificationsConsumer(bus, deps());
    const card = (await raiseCard('u-hook', 'Merge the release branch?')).card!;
    await until('the first post', () => (received.some((r) => r.path === '/hook') ? true : undefined));
    // The relay stops before the retry, and starts again: JetStream hands the event to the new consumer.
    await consumer.stop();
    consumer = await startNotificationsConsumer(bus, deps());
    try {
      await until('the retry', () => (received.filter((r) => r.path === '/hook').length >= 2 ? true : undefined));
      const posts = received.filter((r) => r.path === '/hook');
      expect(posts).toHaveLength(2);
      expect(posts[1]!.headers['content-type']).toBe('application/json');
      expect(JSON.parse(posts[1]!.body.toString())).toEqual({ text: 'A card waits for you on desk: Merge the release branch?' });
      // Delivered everywhere: what it reached is forgotten (only its retries needed it).
      await until('the sends forgotten', async () => ((await store.sentTargets(`card_raised:${card.id}`)).size === 0 ? true : undefined));
      expect(received.filter((r) => r.path === '/hook')).toHaveLength(2);
    } finally {
      await consumer.stop();
    }
  });
});

describe('a retry', () => {
  it('sends only to the targets the event has not reached yet, and forgets them once it reached every one', async () => {
    const browser = createECDH('prime256v1');
    browser.generateKeys();
    await callUnary(client, 'updateNotificationSettings', { userId: 'u-flaky', webhookUrl: `${receiverUrl}/hook-flaky` });
    await callUnary(client, 'addPushSubscription', {
      userId: 'u-flaky',
      endpoint: `${receiverUrl}/push/flaky`,
      p256dh: base64url(browser.getPublicKey()),
      auth: base64url(randomBytes(16)),
    });
    answers.set('/push/flaky', [503]);
    const notice = { eventId: 'e-flaky', userId: 'u-flaky', kind: 'ask' as const, text: 'Ship?', path: '/inbox' };
    await expect(notifyPerson(deps(), notice, NOW)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await store.sentTargets('e-flaky')).toEqual(new Set([`webhook:${receiverUrl}/hook-flaky`]));
    expect(await notifyPerson(deps(), notice, NOW)).toEqual({ sent: [`push:${receiverUrl}/push/flaky`], retry: [] });
    expect(received.filter((r) => r.path === '/hook-flaky')).toHaveLength(1);
    expect(received.filter((r) => r.path === '/push/flaky')).toHaveLength(2);
    expect(await store.sentTargets('e-flaky')).toEqual(new Set());
  });
});

describe('Web Push', () => {
  it('sends a new ask to the subscribed browser as an encrypted Web Push request with VAPID auth, which the browser decrypts', async () => {
    const browser = createECDH('prime256v1');
    browser.generateKeys();
    const authSecret = randomBytes(16);
    const endpoint = `${receiverUrl}/push/browser-1`;
    const added = await callUnary(client, 'addPushSubscription', {
      userId: 'u-push',
      endpoint,
      p256dh: base64url(browser.getPublicKey()),
      auth: base64url(authSecret),
    });
    expect(added.settings?.pushSubscriptions).toBe(1);
    const vapidPublicKey = added.settings!.vapidPublicKey;

    const consumer = await startNotificationsConsumer(bus, deps());
    try {
      await callUnary(client, 'ask', {
        userId: 'u-push',
        askingSessionId: 'asker',
        aboutSessionId: '',
        question: 'Ship tonight?',
        options: ['Tonight', 'Wait'],
        recommendation: '',
        detail: '',
        dryRun: false,
      });
      const push = await until('the push', () => received.find((r) => r.path === '/push/browser-1'));
      expect(push.headers['content-encoding']).toBe('aes128gcm');
      expect(Number(push.headers['ttl'])).toBeGreaterThan(0);

      // VAPID (RFC 8292): "vapid t=<JWT>, k=<the relay's public key>", the JWT signed ES256 by the relay's key.
      const authorization = /^vapid t=([^,]+), k=(\S+)$/.exec(String(push.headers['authorization']));
      expect(authorization?.[2]).toBe(vapidPublicKey);
      const [header, claims, signature] = authorization![1]!.split('.') as [string, string, string];
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ typ: 'JWT', alg: 'ES256' });
      expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({ aud: receiverUrl, sub: 'mailto:relay@example.com' });
      const point = Buffer.from(vapidPublicKey, 'base64url');
      const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) }, format: 'jwk' });
      expect(verify('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);

      // RFC 8291: only the browser's private key and auth secret open it.
      const payload = JSON.parse(decrypt(push.body, { version: 'aes128gcm', privateKey: browser, authSecret }).toString());
      expect(payload).toMatchObject({ title: 'An agent asks you on desk', body: 'Ship tonight?', path: '/inbox' });
    } finally {
      await consumer.stop();
    }
  });

  it('forgets a subscription its push service calls gone (410), and sends nothing of a kind the user turned off', async () => {
    const browser = createECDH('prime256v1');
    browser.generateKeys();
    const endpoint = `${receiverUrl}/push/gone`;
    answers.set('/push/gone', [410]);
    await callUnary(client, 'addPushSubscription', { userId: 'u-gone', endpoint, p256dh: base64url(browser.getPublicKey()), auth: base64url(randomBytes(16)) });
    const notice = { eventId: 'e-gone', userId: 'u-gone', kind: 'card' as const, text: 'Allow?', path: '/sessions/s1' };
    expect(await notifyPerson(deps(), notice, NOW)).toEqual({ sent: [], retry: [] });
    expect((await settingsOf('u-gone')).pushSubscriptions).toBe(0);
    expect(await store.sentTargets('e-gone')).toEqual(new Set());

    const counting: NotificationSenders = {
      ...senders,
      webhook: async () => {
        throw new Error('not to be sent');
      },
    };
    await callUnary(client, 'updateNotificationSettings', { userId: 'u-off', webhookUrl: `${receiverUrl}/off`, cards: false });
    expect(await notifyPerson({ ...deps(), senders: counting }, { ...notice, eventId: 'e-off', userId: 'u-off' }, NOW)).toEqual({ sent: [], retry: [] });
    expect(await notifyPerson({ ...deps(), senders }, { ...notice, eventId: 'e-on', userId: 'u-off', kind: 'ask' }, NOW)).toEqual({
      sent: [`webhook:${receiverUrl}/off`],
      retry: [],
    });
  });
});
