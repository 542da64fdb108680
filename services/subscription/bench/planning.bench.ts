// Benchmark (prints figures, not a test): events per second through ingest + planning with one and with two
// replicas' planners on one database, next to the raw JetStream publish→consume rate measured in the same run.
// Run: npx tsx services/subscription/bench/planning.bench.ts  (needs the local PostgreSQL; starts its own NATS)
import { PrismaPg } from '@prisma/adapter-pg';
import { connectBus, consume, ensureStream } from '@relay/bus';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../src/store/prisma-watch-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const WATCHERS = 50;
const logger = createLogger({ name: 'bench', level: 'silent' });

async function jetStreamRate(url: string): Promise<number> {
  const bus = await connectBus({ url, name: 'bench', logger });
  await ensureStream(bus, { name: 'BENCH', subjects: ['bench.>'] });
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const start = performance.now();
  const consumer = await consume(bus, {
    stream: 'BENCH',
    durable: 'bench',
    filterSubjects: ['bench.x'],
    logger,
    handler: async () => {
      if (++seen === EVENTS) done();
    },
  });
  for (let i = 0; i < EVENTS; i++) await bus.js.publish('bench.x', JSON.stringify({ i }), { msgID: `m${i}` });
  await all;
  const rate = EVENTS / ((performance.now() - start) / 1000);
  await consumer.stop();
  await bus.close();
  return rate;
}

async function pipelineRate(replicas: number): Promise<{ rate: number; wakeUps: number }> {
  const database = await createTestDatabase({ migrationsDir });
  const clients = Array.from({ length: replicas }, () => new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) }));
  const stores = clients.map((prisma) => new PrismaWatchStore(prisma));
  const clock = new ManualClock(new Date('2026-10-24T10:00:00Z'));
  for (let w = 0; w < WATCHERS; w++) {
    const spec = parseSubscribe({
      watcherSessionId: `watcher-${w}`, sessions: [`worker-${w}`], exclude: [], events: [], once: false, match: '',
      stalledMinutes: 0, heartbeatMinutes: 0, digestMinutes: 0, quietHours: null, resolved: [{ id: `worker-${w}`, title: `Worker ${w}` }],
    });
    await stores[0]!.subscribe({ userId: 'u1', watcherSessionId: `watcher-${w}`, spec, now: clock.now(), dryRun: false });
  }
  let ingesting = true;
  const start = performance.now();
  const planners = stores.map(async (store) => {
    for (;;) {
      const worked = await store.evaluateNextDue(clock.now());
      if (!worked && !ingesting) return;
      if (!worked) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  });
  for (let i = 0; i < EVENTS; i++) {
    const w = i % WATCHERS;
    await stores[i % replicas]!.ingest('bench', `m${i}`, {
      type: 'session_events', userId: 'u1', sessionId: `worker-${w}`, senderSessionId: null,
      candidates: [{ sourceEventId: `e${i}`, kind: 'turn_end', text: 'ok', event: { id: `e${i}`, kind: 'turn_end', occurredAt: clock.now(), relay: null, session: { id: `worker-${w}`, title: '' }, status: 'done', text: 'ok', promptMessageId: null } }],
    }, clock.now());
    // Relay time moves 31 s every 10 events: windows close while events keep coming.
    if (i % 10 === 9) clock.advance(31_000);
  }
  clock.advance(3_600_000);
  ingesting = false;
  await Promise.all(planners);
  const rate = EVENTS / ((performance.now() - start) / 1000);
  const wakeUps = await clients[0]!.outboxMessage.count();
  await Promise.all(clients.map((prisma) => prisma.$disconnect()));
  await database.drop();
  return { rate, wakeUps };
}

const nats = await startNats();
try {
  const raw = await jetStreamRate(nats.url);
  console.log(`events: ${EVENTS}, watchers: ${WATCHERS}`);
  console.log(`raw JetStream publish→consume: ${raw.toFixed(0)} msg/s`);
  for (const replicas of [1, 2]) {
    const { rate, wakeUps } = await pipelineRate(replicas);
    console.log(`ingest + planning, ${replicas} replica(s): ${rate.toFixed(0)} events/s (${wakeUps} wake-ups), ratio to raw ${(rate / raw).toFixed(2)}`);
  }
} finally {
  await nats.stop();
}
process.exit(0);
