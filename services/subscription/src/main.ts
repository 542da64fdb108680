/**
 * The subscription service process: the only place its parts are wired together.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { servicePool } from '@relay/db/service-pool';
import { connectBus, ensureStream, OUTBOX_SAFETY_POLL_MS, OutboxRelay } from '@relay/bus';
import { createClock } from '@relay/clock';
import { ConfigError, natsClientOptions, streamSettings } from '@relay/config';
import { SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import { grpcAuth, startGrpcServer } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { compileWasmBaselineOnly } from '@relay/db/compile-wasm-baseline-only';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { SESSION_EVENTS, startSessionEventsConsumer } from './adapters/bus/session-events-consumer.ts';
import { startWatchEventsConsumers, WATCH_CONSUMERS } from './adapters/bus/watch-events-consumer.ts';
import { loadConfig, type Config } from './config.ts';
import { Planner } from './app/planner.ts';
import { SUBSCRIPTION_CALLERS } from './adapters/grpc/subscription-callers.ts';
import { subscriptionGrpc } from './adapters/grpc/subscription-grpc.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { PgSessionActivityStore } from './adapters/store/pg-session-activity-store.ts';
import { PrismaWatchStore } from './adapters/store/prisma-watch-store.ts';
import { pgTransactionalSql } from './adapters/store/sql-statement.ts';
import { registerSubscriptionMetrics } from './adapters/telemetry/subscription-metrics.ts';

const logger = createLogger({ name: 'subscription' });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  logger.fatal({ problems: error.problems }, error.message);
  process.exit(1);
}
logger.level = config.LOG_LEVEL;

// Before the first query compiles Prisma's WebAssembly query compiler.
compileWasmBaselineOnly();
// One pool: Prisma's client runs on it, and so do the pipeline's statements in plain SQL (docs/adr/0025).
const pool = servicePool(config.DATABASE_URL);
// An idle connection the server closed leaves the pool; the next query takes a new one.
pool.on('error', (error) => logger.warn({ err: error }, 'idle database connection closed'));
const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

try {
  const bus = await connectBus({ ...natsClientOptions(config), name: 'subscription', logger });
  await ensureStream(bus, { ...BusStreams.SUBSCRIPTION_COMMANDS, ...streamSettings(config) });
  // Wake-ups are published from memory right after the commit that enqueued them (docs/adr/0028); the poll only picks
  // up what a failed publish or a crash left behind. Its rounds run in plain SQL on the pool, as the pipeline's batches
  // do (docs/adr/0025).
  const outbox = new OutboxRelay({ db: pgTransactionalSql(pool), bus, logger, pollIntervalMs: OUTBOX_SAFETY_POLL_MS });
  outbox.start();

  const clock = createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH, { file: config.RELAY_CLOCK_CONTROL, name: 'subscription' });
  const watch = { store: new PrismaWatchStore(prisma, pool, (rows) => void outbox.publishCommitted(rows)) };
  const planner = new Planner({ watch, clock, logger });
  planner.start();

  const sessionEvents = await startSessionEventsConsumer(bus, {
    store: new PgSessionActivityStore(pool, SESSION_EVENTS.durable, { onWatchersDue: () => planner.nudge() }),
    logger,
  });
  // Not awaited: the session and question services declare their streams and may start after this service.
  const watchEvents = startWatchEventsConsumers(bus, {
    watch,
    clock,
    logger,
    onIngested: (batch) => planner.dueBy(batch.nextDueAt),
  });
  const subscriptionMetrics = registerSubscriptionMetrics({ prisma, bus, clock, logger, consumers: [SESSION_EVENTS, ...WATCH_CONSUMERS] });

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    host: config.GRPC_HOST,
    healthPort: config.GRPC_HEALTH_PORT,
    auth: grpcAuth('subscription', config),
    services: [
      {
        definition: SubscriptionServiceService,
        implementation: subscriptionGrpc({ watch, clock, logger, onChange: () => planner.nudge() }),
        callers: SUBSCRIPTION_CALLERS,
      },
    ],
    logger,
  });

  onShutdownSignal(logger, async () => {
    await server.shutdown();
    await sessionEvents.stop();
    await watchEvents.stop();
    await planner.stop();
    await outbox.stop();
    subscriptionMetrics.stop();
    await prisma.$disconnect();
    await pool.end();
    await bus.close();
    await shutdownTelemetry();
  });
} catch (error) {
  logger.fatal({ err: error }, 'subscription service failed to start');
  await prisma.$disconnect().catch(() => undefined);
  await pool.end().catch(() => undefined);
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}
