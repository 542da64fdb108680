// The subscription service's gauges read from a real database and a real JetStream consumer: held events by status,
// those due by the relay clock, and messages waiting for the durable consumers.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy } from '@nats-io/jetstream';
import { connectBus, ensureStream, type Bus } from '@relay/bus';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { recordMetrics, type MetricRecorder } from '@relay/telemetry/testing';
import { createTestDatabase, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { SESSION_EVENTS } from '../src/adapters/bus/session-events-consumer.ts';
import { WATCH_CONSUMERS } from '../src/adapters/bus/watch-events-consumer.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { registerSubscriptionMetrics, type SubscriptionMetrics } from '../src/adapters/telemetry/subscription-metrics.ts';
import { SESSION_CREATED_SUBJECT, SESSION_EVENTS_STREAM } from './fixtures/session-created.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T09:00:00.000Z');
const logger = createLogger({ name: 'subscription-metrics-test', level: 'silent' });

let nats: NatsServer;
let database: TestDatabase;
let bus: Bus;
let prisma: PrismaClient;
let recorder: MetricRecorder;
let gauges: SubscriptionMetrics;

beforeAll(async () => {
  [nats, database] = await Promise.all([startNats(), createTestDatabase({ migrationsDir })]);
  bus = await connectBus({ url: nats.url, name: 'subscription-metrics-test', logger, ...nats.credentials(TEST_NATS_USER) });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  recorder = recordMetrics();
  gauges = registerSubscriptionMetrics({ prisma, bus, clock: new ManualClock(NOW), logger, consumers: [SESSION_EVENTS, ...WATCH_CONSUMERS] });
});

afterAll(async () => {
  gauges?.stop();
  await recorder?.stop();
  await prisma?.$disconnect();
  await bus?.close();
  await nats?.stop();
  await database?.drop();
});

async function addEvent(id: string, status: string, at: { releaseAt?: Date; deliverAt?: Date } = {}): Promise<void> {
  await prisma.watcherEvent.create({
    data: {
      id,
      watcherSessionId: 'watcher-1',
      sourceEventId: id,
      event: {},
      subscriptionIds: [],
      status,
      releaseAt: at.releaseAt,
      deliverAt: at.deliverAt,
      receivedAt: NOW,
    },
  });
}

const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

describe('subscription metrics', () => {
  it('report held events by status, the ones due or overdue at the relay clock, and each consumer lag', async () => {
    await prisma.watcher.create({ data: { sessionId: 'watcher-1', userId: 'u1', state: {} } });
    await addEvent('held-overdue', 'held', { releaseAt: minutes(-5) });
    await addEvent('held-due-now', 'held', { releaseAt: NOW });
    await addEvent('held-later', 'held', { releaseAt: minutes(30) });
    await addEvent('waiting', 'waiting');
    await addEvent('released-overdue', 'released', { releaseAt: minutes(-2), deliverAt: minutes(-1) });
    await addEvent('released-later', 'released', { releaseAt: NOW, deliverAt: minutes(1) });
    await addEvent('delivered', 'delivered', { releaseAt: minutes(-10), deliverAt: minutes(-10) });
    await addEvent('new', 'new');

    // The durable consumer exists and three messages wait for it; the other consumers do not exist yet.
    await ensureStream(bus, SESSION_EVENTS_STREAM);
    await bus.jsm.consumers.add('SESSION_EVENTS', {
      durable_name: 'subscription-session-events',
      ack_policy: AckPolicy.Explicit,
      filter_subject: 'relay.session.v1.>',
    });
    for (let n = 0; n < 3; n++) await bus.js.publish(SESSION_CREATED_SUBJECT, '{}');

    const points = await recorder.collect();
    const held = points.filter((point) => point.name === 'relay.subscription.held_events');
    expect(held.map((point) => [point.attributes['relay.subscription.event_status'], point.value, point.unit]).sort()).toEqual([
      ['held', 3, '{event}'],
      ['released', 2, '{event}'],
      ['waiting', 1, '{event}'],
    ]);
    expect(points.find((point) => point.name === 'relay.subscription.due_deliveries')).toMatchObject({ value: 3, unit: '{delivery}' });
    expect(points.filter((point) => point.name === 'relay.subscription.consumer.lag')).toEqual([
      expect.objectContaining({
        value: 3,
        unit: '{message}',
        attributes: { 'relay.bus.stream': 'SESSION_EVENTS', 'relay.bus.consumer': 'subscription-session-events' },
      }),
    ]);
  });
});
