// Benchmark of the subscription service's pipeline (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/subscription-pipeline.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts its own nats-server). BENCH_EVENTS sets the event count.
//
// Each run measures, in the same process and on the same nats-server:
// - raw JetStream: publish → durable consumer, messages per second (the ceiling the pipeline sits on);
// - the pipeline with 1 and with 2 replicas: turn_ended events published on SESSION_EVENTS, taken by the real watch
//   consumer (matching), stored per watcher, planned by the real Planner (SKIP LOCKED per watcher), rendered, written
//   to the outbox and published by the OutboxRelay as deliver_wakeup, received by a consumer here. Throughput is
//   events per second from the first publish to the last wake-up; latency is per event from its publish to the
//   wake-up that carries it, measured in a second phase paced at about half the measured throughput.
// The 30-second coalescing window and the hourly cap are overridden (0 s, no cap) so that the figures measure the
// pipeline rather than the rules' deliberate waits; the output says so.
import { PrismaPg } from '@prisma/adapter-pg';
import { connectBus, consume, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { SystemClock } from '@relay/clock';
import { TurnEnded } from '@relay/proto/relay/session/v1/events';
import { TurnStatus } from '@relay/proto/relay/session/v1/session';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { startWatchEventsConsumers } from '../services/subscription/src/bus/watch-events-consumer.ts';
import { DEFAULT_DELIVERY_TIMINGS, type DeliveryTimings } from '../services/subscription/src/domain/delivery/index.ts';
import { Planner } from '../services/subscription/src/domain/subscriptions/planner.ts';
import { parseSubscribe } from '../services/subscription/src/domain/subscriptions/subscribe-rules.ts';
import { PrismaClient } from '../services/subscription/src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../services/subscription/src/store/prisma-watch-store.ts';

const migrationsDir = fileURLToPath(new URL('../services/subscription/prisma/migrations', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const LATENCY_EVENTS = Math.min(400, EVENTS);
const WATCHERS = 50;
const TIMINGS: DeliveryTimings = { ...DEFAULT_DELIVERY_TIMINGS, coalesceMs: 0, capWakeUps: Number.MAX_SAFE_INTEGER };
const logger = createLogger({ name: 'bench', level: 'silent' });
const clock = new SystemClock();

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function rawJetStream(url: string): Promise<number> {
  const bus = await connectBus({ url, name: 'bench-raw', logger });
  await bus.jsm.streams.delete('BENCH').catch(() => undefined);
  await ensureStream(bus, { name: 'BENCH', subjects: ['bench.>'] });
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const consumer = await consume(bus, { stream: 'BENCH', durable: 'bench', filterSubjects: ['bench.x'], logger, handler: async () => void (++seen === EVENTS && done()) });
  const start = performance.now();
  for (let i = 0; i < EVENTS; i++) await bus.js.publish('bench.x', JSON.stringify({ i }), { msgID: `m${i}` });
  await all;
  const rate = EVENTS / ((performance.now() - start) / 1000);
  await consumer.stop();
  await bus.close();
  return rate;
}

/** One replica of the subscription service's pipeline: its watch consumers, planner and outbox relay. */
async function startReplica(url: string, databaseUrl: string, index: number) {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const bus = await connectBus({ url, name: `bench-replica-${index}`, logger });
  const store = new PrismaWatchStore(prisma, { timings: TIMINGS });
  const planner = new Planner({ watchers: store, clock, logger });
  planner.start();
  const consumers = startWatchEventsConsumers(bus, { store, clock, logger, onIngested: () => planner.nudge() });
  const outbox = new OutboxRelay({ db: prisma, bus, logger });
  outbox.start();
  return {
    store,
    async stop() {
      await consumers.stop();
      await planner.stop();
      await outbox.stop();
      await prisma.$disconnect();
      await bus.close();
    },
  };
}

function turnEnded(i: number) {
  const w = i % WATCHERS;
  return TurnEnded.toJSON({
    eventId: `e${i}`, occurredAt: new Date(), sessionId: `worker-${w}`, userId: 'u1', turnId: `t${i}`, messageId: `m${i}`,
    status: TurnStatus.TURN_STATUS_DONE, text: `reply ${i}`, senderSessionId: '',
  });
}

async function pipeline(url: string, replicas: number): Promise<{ rate: number; p50: number; p99: number; wakeUps: number }> {
  const database = await createTestDatabase({ migrationsDir });
  const publisher: Bus = await connectBus({ url, name: 'bench-publisher', logger });
  // Fresh streams per run, so each pipeline starts from nothing.
  for (const name of ['SESSION_EVENTS', 'QUESTION_EVENTS', 'SUBSCRIPTION_COMMANDS']) await publisher.jsm.streams.delete(name).catch(() => undefined);
  await ensureStream(publisher, { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] });
  await ensureStream(publisher, { name: 'QUESTION_EVENTS', subjects: ['relay.question.v1.>'] });
  await ensureStream(publisher, { name: 'SUBSCRIPTION_COMMANDS', subjects: ['relay.subscription.v1.>'] });
  const running = await Promise.all(Array.from({ length: replicas }, (_, i) => startReplica(url, database.url, i)));
  for (let w = 0; w < WATCHERS; w++) {
    const spec = parseSubscribe({
      watcherSessionId: `watcher-${w}`, sessions: [`worker-${w}`], exclude: [], events: [], once: false, match: '',
      stalledMinutes: 0, heartbeatMinutes: 0, digestMinutes: 0, quietHours: null, resolved: [{ id: `worker-${w}`, title: `Worker ${w}` }],
    });
    await running[0]!.store.subscribe({ userId: 'u1', watcherSessionId: `watcher-${w}`, spec, now: clock.now(), dryRun: false });
  }

  const publishedAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  let wakeUps = 0;
  let target = 0;
  let reached: () => void = () => undefined;
  const wakeUpConsumer = await consume(publisher, {
    stream: 'SUBSCRIPTION_COMMANDS', durable: 'bench-wakeups', filterSubjects: ['relay.subscription.v1.cmd.deliver_wakeup'], logger,
    handler: async (message) => {
      const now = performance.now();
      wakeUps += 1;
      for (const id of (message.data as { sourceEventIds: string[] }).sourceEventIds) {
        const at = publishedAt.get(id);
        if (at !== undefined) latencies.push(now - at);
        delivered += 1;
      }
      if (delivered >= target) reached();
    },
  });
  const publish = async (from: number, to: number, gapMs: number) => {
    target = to;
    const all = new Promise<void>((resolve) => (reached = resolve));
    for (let i = from; i < to; i++) {
      publishedAt.set(`e${i}`, performance.now());
      await publisher.js.publish('relay.session.v1.turn_ended', JSON.stringify(turnEnded(i)), { msgID: `e${i}` });
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await all;
  };

  const start = performance.now();
  await publish(0, EVENTS, 0);
  const rate = EVENTS / ((performance.now() - start) / 1000);
  latencies.length = 0;
  await publish(EVENTS, EVENTS + LATENCY_EVENTS, 2000 / rate);
  const sorted = [...latencies].sort((a, b) => a - b);

  await wakeUpConsumer.stop();
  await Promise.all(running.map((replica) => replica.stop()));
  await publisher.close();
  await database.drop();
  return { rate, p50: percentile(sorted, 50), p99: percentile(sorted, 99), wakeUps };
}

const nats = await startNats();
try {
  console.log(`subscription pipeline benchmark: ${EVENTS} events over ${WATCHERS} watchers (each watches one session), latency from ${LATENCY_EVENTS} paced events`);
  console.log('overrides: coalescing window 0 s (the spec has 30 s) and no hourly cap, so the figures measure the pipeline, not its deliberate waits');
  for (const replicas of [1, 2]) {
    const raw = await rawJetStream(nats.url);
    const result = await pipeline(nats.url, replicas);
    console.log(
      `${replicas} replica${replicas === 1 ? ' ' : 's'}: raw JetStream ${raw.toFixed(0)} msg/s | pipeline ${result.rate.toFixed(0)} events/s (${(result.rate / raw).toFixed(3)} of raw), ` +
        `${result.wakeUps} wake-ups | event→wake-up latency p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms`,
    );
  }
} finally {
  await nats.stop();
}
process.exit(0);
