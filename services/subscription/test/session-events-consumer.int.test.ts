// The session-events consumer against a real nats-server and a real PostgreSQL: messages published as the session
// service's outbox publishes them land in the projection, once per message id.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBus, ensureStream, type Bus, type Consumer } from '@relay/bus';
import { SessionCreated } from '@relay/proto/relay/session/v1/events';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { handleSessionEvent, SESSION_EVENTS, startSessionEventsConsumer } from '../src/adapters/bus/session-events-consumer.ts';
import { recordSessionEvents } from '../src/app/record-session-event.ts';
import type { SessionEvent } from '../src/domain/session-activity.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionActivityStore } from '../src/adapters/store/pg-session-activity-store.ts';
import { SESSION_CREATED_SUBJECT, SESSION_EVENTS_STREAM, sessionCreatedPayload } from './fixtures/session-created.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'subscription-test', level: 'silent' });

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let prisma: PrismaClient;
let pool: pg.Pool;
let store: PgSessionActivityStore;
let consumer: Consumer | undefined;

beforeAll(async () => {
  [nats, database] = await Promise.all([startNats(), createTestDatabase({ migrationsDir })]);
  bus = await connectBus({ url: nats.url, name: 'subscription-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, SESSION_EVENTS_STREAM);
  ({ prisma, pool } = databaseClients(database.url));
  store = new PgSessionActivityStore(pool, SESSION_EVENTS.durable);
});

afterAll(async () => {
  await consumer?.stop();
  await bus?.close();
  await prisma?.$disconnect();
  await pool?.end();
  await nats?.stop();
  await database?.drop();
});

const publish = (eventId: string, sessionId: string, title: string, occurredAt: Date) =>
  bus.js.publish(SESSION_CREATED_SUBJECT, JSON.stringify(sessionCreatedPayload({ eventId, sessionId, title, occurredAt })), { msgID: eventId });

/** Every message delivered and acked (or terminated): nothing pending, nothing waiting for an ack. */
async function settled(): Promise<void> {
  await vi.waitFor(
    async () => {
      const info = await bus.jsm.consumers.info(SESSION_EVENTS.wholeStream.name, SESSION_EVENTS.durable);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    },
    { timeout: 15_000, interval: 50 },
  );
}

const snapshot = async () => ({
  activity: await prisma.sessionActivity.findMany({ orderBy: { sessionId: 'asc' } }),
  processed: await prisma.processedMessage.findMany({ orderBy: { messageId: 'asc' } }),
});

describe('the session-events consumer', () => {
  it('projects published session_created events, and a second delivery of the same message ids changes nothing', async () => {
    const at = new Date('2026-11-30T10:00:00.000Z');
    consumer = await startSessionEventsConsumer(bus, { store, logger });
    await publish('evt-1', 'sess-1', 'First', at);
    await publish('evt-2', 'sess-2', 'Second', at);
    await publish('evt-3', 'sess-3', 'Third', at);
    await settled();

    const first = await snapshot();
    expect(
      first.activity.map(({ sessionId, userId, title, state, lastEventAt, lastEventId }) => ({ sessionId, userId, title, state, lastEventAt, lastEventId })),
    ).toEqual([
      { sessionId: 'sess-1', userId: 'u1', title: 'First', state: 'idle', lastEventAt: at, lastEventId: 'evt-1' },
      { sessionId: 'sess-2', userId: 'u1', title: 'Second', state: 'idle', lastEventAt: at, lastEventId: 'evt-2' },
      { sessionId: 'sess-3', userId: 'u1', title: 'Third', state: 'idle', lastEventAt: at, lastEventId: 'evt-3' },
    ]);
    expect(first.processed.map((row) => [row.consumer, row.messageId])).toEqual([
      ['subscription-session-events', 'evt-1'],
      ['subscription-session-events', 'evt-2'],
      ['subscription-session-events', 'evt-3'],
    ]);

    // Deliver every message again with the same Nats-Msg-Id, as after a crash between commit and ack: a fresh
    // durable of the same name starts from the beginning of the stream.
    await consumer.stop();
    await bus.jsm.consumers.delete(SESSION_EVENTS.wholeStream.name, SESSION_EVENTS.durable);
    consumer = await startSessionEventsConsumer(bus, { store, logger });
    await settled();
    const info = await bus.jsm.consumers.info(SESSION_EVENTS.wholeStream.name, SESSION_EVENTS.durable);
    expect(info.delivered.stream_seq).toBe(3);
    expect(await snapshot()).toEqual(first);
  });

  it('applies a message id once even when a redelivery would otherwise change the row', async () => {
    const message = (title: string, occurredAt: string) => ({
      id: 'evt-redelivered',
      subject: SESSION_CREATED_SUBJECT,
      data: SessionCreated.fromJSON(sessionCreatedPayload({ eventId: 'evt-redelivered', sessionId: 'sess-9', title, occurredAt: new Date(occurredAt) })),
      deliveryCount: 1,
    });
    await handleSessionEvent(store, message('Original', '2026-11-30T10:00:00Z'), logger);
    await handleSessionEvent(store, { ...message('Changed', '2026-11-30T11:00:00Z'), deliveryCount: 2 }, logger);
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-9' } })).toMatchObject({ title: 'Original' });
  });

  it('keeps the newest event when an older one arrives later', async () => {
    await publish('evt-new', 'sess-4', 'Newer', new Date('2026-11-30T12:00:00Z'));
    await publish('evt-old', 'sess-4', 'Older', new Date('2026-11-30T11:00:00Z'));
    await settled();
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-4' } })).toMatchObject({
      title: 'Newer',
      lastEventId: 'evt-new',
    });
    expect(await prisma.processedMessage.count({ where: { messageId: { in: ['evt-new', 'evt-old'] } } })).toBe(2);
  });

  it('applies a batch in one transaction, in its order, each message once, and makes the watchers of a session whose runs changed due', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 13, minute));
    const base = (eventId: string, sessionId: string, minute: number) => ({ eventId, sessionId, userId: 'u-batch', occurredAt: at(minute) });
    const delivered = (event: SessionEvent) => ({ messageId: event.eventId, event });
    await prisma.watcher.create({ data: { sessionId: 'w-batch', userId: 'u-batch', state: {}, nextEvaluationAt: null } });
    await prisma.subscription.create({
      data: {
        id: 'sub-batch',
        userId: 'u-batch',
        watcherSessionId: 'w-batch',
        scope: 'sessions',
        sessions: [{ id: 'sess-b1', title: 'One' }],
        events: ['all_idle'],
        createdAt: at(0),
      },
    });
    const started = delivered({ ...base('b-2', 'sess-b1', 2), type: 'turn_started', turnId: 't1' });

    const first = await recordSessionEvents(store, [
      delivered({ ...base('b-1', 'sess-b1', 1), type: 'session_created', title: 'One', state: 'idle' }),
      started,
      delivered({ ...base('b-3', 'sess-b2', 3), type: 'session_created', title: 'Two', state: 'idle' }),
    ]);
    expect(first).toEqual(new Set(['b-1', 'b-2', 'b-3']));
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-b1' } })).toMatchObject({
      title: 'One',
      state: 'running_turn',
      lastEventId: 'b-2',
    });
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-b2' } })).toMatchObject({ title: 'Two', state: 'idle' });
    // Due from the first change of the watched session's runs in the batch (its creation).
    expect((await prisma.watcher.findUniqueOrThrow({ where: { sessionId: 'w-batch' } })).nextEvaluationAt).toEqual(at(1));

    // A redelivered message beside a new one: only the new one is applied.
    const again = await recordSessionEvents(store, [started, delivered({ ...base('b-4', 'sess-b1', 4), type: 'turn_ended', turnId: 't1' })]);
    expect(again).toEqual(new Set(['b-4']));
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-b1' } })).toMatchObject({ state: 'idle', lastEventId: 'b-4' });
  });

  it('terminates a payload it can never apply and goes on with the next', async () => {
    await bus.js.publish(SESSION_CREATED_SUBJECT, JSON.stringify({ eventId: 'evt-bad' }), { msgID: 'evt-bad' });
    await publish('evt-5', 'sess-5', 'After the bad one', new Date('2026-11-30T10:00:00Z'));
    await settled();
    expect(await prisma.sessionActivity.findUnique({ where: { sessionId: 'sess-5' } })).toMatchObject({ title: 'After the bad one' });
    expect(await prisma.processedMessage.count({ where: { messageId: 'evt-bad' } })).toBe(0);
  });
});
