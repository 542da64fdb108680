// One replica of the subscription service's pipeline, as its own process (bench/subscription-pipeline.bench.ts starts
// it): the watch consumers, the planner and the outbox relay, wired as services/subscription/src/main.ts wires them,
// with the coalescing window and the hourly cap overridden. Prints "ready" once consuming; SIGTERM stops it.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { connectBus, OUTBOX_SAFETY_POLL_MS, OutboxRelay } from '@relay/bus';
import { SystemClock } from '@relay/clock';
import { compileWasmBaselineOnly } from '@relay/db/compile-wasm-baseline-only';
import { createLogger } from '@relay/telemetry';
import { startWatchEventsConsumers } from '../../services/subscription/src/adapters/bus/watch-events-consumer.ts';
import { DEFAULT_DELIVERY_TIMINGS } from '../../services/subscription/src/domain/delivery/index.ts';
import { Planner } from '../../services/subscription/src/app/planner.ts';
import { PrismaClient } from '../../services/subscription/src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../../services/subscription/src/adapters/store/prisma-watch-store.ts';
import { pgTransactionalSql } from '../../services/subscription/src/adapters/store/sql-statement.ts';

const env = (name: string) => process.env[name] ?? '';
const logger = createLogger({ name: 'bench-replica', level: 'warn' });
const clock = new SystemClock();
compileWasmBaselineOnly();
const pool = new pg.Pool({ connectionString: env('DATABASE_URL') });
const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
const bus = await connectBus({ url: env('NATS_URL'), user: env('NATS_USER'), password: env('NATS_PASSWORD'), name: 'bench-replica', logger });
// No cap by an empty window rather than an endless count: the watcher keeps its last 20 wake-ups as in the service, so
// its state row stays the size it has there.
const outbox = new OutboxRelay({ db: pgTransactionalSql(pool), bus, logger, pollIntervalMs: OUTBOX_SAFETY_POLL_MS });
outbox.start();
const store = new PrismaWatchStore(prisma, pool, (rows) => void outbox.publishCommitted(rows));
const watch = { store, timings: { ...DEFAULT_DELIVERY_TIMINGS, coalesceMs: 0, capWindowMs: 0 } };
const planner = new Planner({ watch, clock, logger });
planner.start();
const consumers = startWatchEventsConsumers(bus, {
  watch,
  clock,
  logger,
  onIngested: (batch) => planner.dueBy(batch.nextDueAt),
});
process.stdout.write('ready\n');

process.once('SIGTERM', () => {
  void (async () => {
    await consumers.stop();
    await planner.stop();
    await outbox.stop();
    await prisma.$disconnect();
    await pool.end();
    await bus.close();
    process.exit(0);
  })();
});
