// Benchmark of the scheduler's firing (prints figures; it is not a test). Run from the repository root:
//   npx tsx bench/scheduler-firing.bench.ts
// (needs the local PostgreSQL at 127.0.0.1:5432; starts its own nats-server). BENCH_SCHEDULES (default 10,000) active
// schedules repeat every BENCH_EVERY_MINUTES (default 10) on whole minutes, spread evenly, so BENCH_SCHEDULES /
// BENCH_EVERY_MINUTES of them are due at the same instant each minute: the burst a grid of whole minutes makes.
// The real firing loop (on the system clock), store and outbox relay run in this process, as
// services/scheduler/src/main.ts wires them; the loop guard is a port answering yes (the schedules fire into their own
// session, which it is not asked about anyway). For BENCH_MINUTES (default 2) whole minutes it prints each firing's
// lateness: from its due instant to the moment its queue_prompt command reached a consumer here (the firing committed
// and published), p50 / p99 / max, per minute and over all.
import { PrismaPg } from '@prisma/adapter-pg';
import { connectBus, consume, ensureStream, OutboxRelay } from '@relay/bus';
import { SystemClock } from '@relay/clock';
import { BusStreams, SchedulerCommands } from '@relay/proto/relay/bus-contracts';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats, TEST_NATS_USER } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PrismaClient } from '../services/scheduler/src/generated/prisma/client.ts';
import { FiringLoop } from '../services/scheduler/src/adapters/loops/firing-loop.ts';
import { PrismaScheduleStore } from '../services/scheduler/src/adapters/store/prisma-schedule-store.ts';

const migrationsDir = fileURLToPath(new URL('../services/scheduler/prisma/migrations', import.meta.url));
const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 10_000);
const EVERY_MINUTES = Number(process.env.BENCH_EVERY_MINUTES ?? 10);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 2);
const MINUTE_MS = 60_000;
const logger = createLogger({ name: 'bench', level: 'warn' });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fixed = (value: number, digits = 0) => value.toFixed(digits);

const nats = await startNats();
const database = await createTestDatabase({ migrationsDir });
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
const bus = await connectBus({ url: nats.url, name: 'bench-scheduler', logger, ...nats.credentials(TEST_NATS_USER) });
try {
  await ensureStream(bus, BusStreams.SCHEDULER_COMMANDS);
  // The first due minute leaves time to set up; every schedule fires once per EVERY_MINUTES from there.
  const first = Math.ceil((Date.now() + 20_000) / MINUTE_MS) * MINUTE_MS;
  const rows = Array.from({ length: SCHEDULES }, (_, i) => {
    const session = `session-${i % 500}`;
    const at = new Date(first + (i % EVERY_MINUTES) * MINUTE_MS).toISOString();
    return {
      id: `sch_${i.toString(16).padStart(12, '0')}`,
      user_id: `user-${i % 50}`,
      title: `S${i}`,
      text: 'reply tick',
      target_session_id: session,
      setting_session_id: session,
      at,
      every_minutes: EVERY_MINUTES,
      once: false,
      next_fire_at: at,
      created_at: new Date().toISOString(),
      provenance: { originRelay: 'desk', originSessionId: session, originSessionTitle: 'Setter', model: 'script-1', hops: 0 },
    };
  });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(
    `INSERT INTO schedules (id, user_id, title, text, target_session_id, setting_session_id, at, every_minutes, once, next_fire_at, created_at, provenance)
     SELECT r.id, r.user_id, r.title, r.text, r.target_session_id, r.setting_session_id, r.at, r.every_minutes, r.once, r.next_fire_at, r.created_at, r.provenance
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, user_id text, title text, text text, target_session_id text, setting_session_id text,
            at timestamp(3), every_minutes int, once boolean, next_fire_at timestamp(3), created_at timestamp(3), provenance jsonb)`,
    [JSON.stringify(rows)],
  );
  await admin.query('ANALYZE schedules');
  await admin.end();

  const lateness = new Map<number, number[]>();
  const received = async (messages: { data: { dueAt?: Date | undefined } }[]) => {
    const now = Date.now();
    for (const message of messages) {
      const dueAt = message.data.dueAt?.getTime() ?? Number.NaN;
      lateness.set(dueAt, [...(lateness.get(dueAt) ?? []), now - dueAt]);
    }
  };
  const consumer = await consume(bus, {
    durable: 'bench-queue-prompt',
    contracts: [SchedulerCommands.QUEUE_PROMPT],
    logger,
    handler: async (message) => received([message]),
    // In batches, so that reading the commands adds little to what is measured.
    batchHandler: async (messages) => received(messages),
    maxBatch: 500,
  });
  const store = new PrismaScheduleStore(prisma);
  const outbox = new OutboxRelay({ db: prisma, bus, logger });
  outbox.start();
  const loop = new FiringLoop({ store, guard: { countPrompt: async () => true }, clock: new SystemClock(), logger, onFired: () => outbox.wake() });
  loop.start();

  console.log(
    `scheduler firing benchmark: ${SCHEDULES} active schedules, every ${EVERY_MINUTES} min on whole minutes, ${SCHEDULES / EVERY_MINUTES} due at once each minute, for ${MINUTES} min`,
  );
  const end = first + (MINUTES - 1) * MINUTE_MS;
  const expected = Math.min(MINUTES, EVERY_MINUTES) * (SCHEDULES / EVERY_MINUTES);
  const deadline = end + MINUTE_MS;
  while (Date.now() < deadline && [...lateness.values()].reduce((sum, list) => sum + list.length, 0) < expected)
    await new Promise((resolve) => setTimeout(resolve, 250));
  await loop.stop();
  await outbox.stop();
  await consumer.stop();

  const all: number[] = [];
  for (const [dueAt, list] of [...lateness].sort((a, b) => a[0] - b[0])) {
    const sorted = [...list].sort((a, b) => a - b);
    all.push(...sorted);
    console.log(
      `  due ${new Date(dueAt).toISOString()}: ${sorted.length} firings, lateness p50 ${fixed(percentile(sorted, 50))} ms, p99 ${fixed(percentile(sorted, 99))} ms, max ${fixed(sorted.at(-1) ?? NaN)} ms`,
    );
  }
  all.sort((a, b) => a - b);
  console.log(
    `all: ${all.length} of ${expected} firings, lateness p50 ${fixed(percentile(all, 50))} ms, p99 ${fixed(percentile(all, 99))} ms, max ${fixed(all.at(-1) ?? NaN)} ms (target: p99 ≤ 1000 ms)`,
  );
} finally {
  await prisma.$disconnect();
  await bus.close();
  await database.drop();
  await nats.stop();
}
process.exit(0);
