/**
 * The subscription service process: the only place its parts are wired together (config, bus, outbox, gRPC server
 * and shutdown order: @relay/service).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { startService } from '@relay/service';
import { servicePool } from '@relay/db/service-pool';
import { SESSION_EVENTS, startSessionEventsConsumer } from './adapters/bus/session-events-consumer.ts';
import { startWatchEventsConsumers, WATCH_CONSUMERS } from './adapters/bus/watch-events-consumer.ts';
import { loadConfig } from './config.ts';
import { Planner } from './app/planner.ts';
import { SUBSCRIPTION_CALLERS } from './adapters/grpc/subscription-callers.ts';
import { subscriptionGrpc } from './adapters/grpc/subscription-grpc.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { PgSessionActivityStore } from './adapters/store/pg-session-activity-store.ts';
import { PrismaWatchStore } from './adapters/store/prisma-watch-store.ts';
import { pgTransactionalSql } from './adapters/store/sql-statement.ts';
import { registerSubscriptionMetrics } from './adapters/telemetry/subscription-metrics.ts';

await startService({
  name: 'subscription',
  loadConfig,
  pool: servicePool,
  // One pool: Prisma's client runs on it, and so do the pipeline's statements in plain SQL (docs/adr/0025).
  database: (pool, logger) => {
    // An idle connection the server closed leaves the pool; the next query takes a new one.
    pool.on('error', (error) => logger.warn({ err: error }, 'idle database connection closed'));
    return new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  },
  stream: BusStreams.SUBSCRIPTION_COMMANDS,
  // Wake-ups are published from memory right after the commit that enqueued them (docs/adr/0028); the poll only picks
  // up what a failed publish or a crash left behind. Its rounds run in plain SQL on the pool, as the pipeline's batches
  // do (docs/adr/0025).
  outbox: { db: ({ pool }) => pgTransactionalSql(pool), wakeOnCommit: false },
  async start({ logger, clock, pool, db: prisma, bus, outbox, serve }) {
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

    await serve([
      {
        definition: SubscriptionServiceService,
        implementation: subscriptionGrpc({ watch, clock, logger, onChange: () => planner.nudge() }),
        callers: SUBSCRIPTION_CALLERS,
      },
    ]);

    return {
      drain: async () => {
        await sessionEvents.stop();
        await watchEvents.stop();
        await planner.stop();
        subscriptionMetrics.stop();
      },
    };
  },
});
