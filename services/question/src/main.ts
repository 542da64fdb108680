/**
 * The question service process: the only place its parts are wired together.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { servicePool } from '@relay/db/service-pool';
import { connectBus, ensureStream, OUTBOX_CHANNEL, OUTBOX_SAFETY_POLL_MS, OutboxRelay } from '@relay/bus';
import { listen } from '@relay/db/listen';
import { createClock, SystemClock } from '@relay/clock';
import { ConfigError, natsClientOptions, streamSettings } from '@relay/config';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { QuestionServiceService } from '@relay/proto/relay/question/v1/question_service';
import { grpcAuth, startGrpcServer } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { compileWasmBaselineOnly } from '@relay/db/compile-wasm-baseline-only';
import { loadConfig, type Config } from './config.ts';
import { startSessionArchivedConsumer } from './adapters/bus/session-archived-consumer.ts';
import { startTurnEndedConsumer, turnEndsHeard } from './adapters/bus/turn-ended-consumer.ts';
import { nodeIds } from './adapters/crypto/node-ids.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { QUESTION_CALLERS } from './adapters/grpc/question-callers.ts';
import { questionGrpc } from './adapters/grpc/question-grpc.ts';
import { toAskCreated, toQuestionAnswered } from './adapters/grpc/wire/ask-wire.ts';
import { toCardDecided, toCardRaised } from './adapters/grpc/wire/card-wire.ts';
import { notificationSenders } from './adapters/http/notification-senders.ts';
import { startNotificationsConsumer } from './adapters/bus/notifications-consumer.ts';
import { PrismaNotificationStore } from './adapters/store/prisma-notification-store.ts';
import { PgCardDecisions } from './adapters/store/pg-card-decisions.ts';
import { PgAskReads } from './adapters/store/pg-ask-reads.ts';
import { PrismaAskStore } from './adapters/store/prisma-ask-store.ts';
import { PrismaCardStore } from './adapters/store/prisma-card-store.ts';

const logger = createLogger({ name: 'question' });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  logger.fatal({ problems: error.problems }, error.message);
  process.exit(1);
}
logger.level = config.LOG_LEVEL;

const clock = createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH, { file: config.RELAY_CLOCK_CONTROL, name: 'question' });
// Before the first query compiles Prisma's WebAssembly query compiler.
compileWasmBaselineOnly();
// One pool for Prisma's client and ListAsks' read in plain SQL (PgAskReads); $disconnect() ends it.
const pool = servicePool(config.DATABASE_URL);
const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
const decisions = new PgCardDecisions({ connectionString: config.DATABASE_URL, logger });
const stopping = new AbortController();

try {
  await decisions.start();
  const bus = await connectBus({ ...natsClientOptions(config), name: 'question', logger });
  await ensureStream(bus, { ...BusStreams.QUESTION_EVENTS, ...streamSettings(config) });
  // Woken when a transaction that wrote outbox rows commits (here or on another replica); the poll is a safety net.
  const outbox = new OutboxRelay({ db: prisma, bus, logger, pollIntervalMs: OUTBOX_SAFETY_POLL_MS });
  outbox.start();
  const outboxWrites = await listen({ connectionString: config.DATABASE_URL, channel: OUTBOX_CHANNEL, onNotify: () => outbox.wake(), logger });
  const asks = new PrismaAskStore(prisma, toQuestionAnswered, toAskCreated);
  const cards = new PrismaCardStore(prisma, toCardDecided, toCardRaised);
  const notifications = new PrismaNotificationStore(prisma);
  const senders = notificationSenders({ vapidSubject: config.NOTIFY_VAPID_SUBJECT, logger });
  // The VAPID key pair is made at the first start and kept (Web Push subscriptions are bound to its public key).
  await notifications.vapidKeys(() => senders.makeVapidKeys(), clock.now());
  const notifying = await startNotificationsConsumer(bus, { notifications, senders, relayName: config.RELAY_NAME, clock, logger });
  const archived = startSessionArchivedConsumer(bus, { asks, clock, logger }, stopping.signal).catch((error: unknown) => {
    logger.error({ err: error }, 'the session-archived consumer failed to start');
    return undefined;
  });
  const turnEnds = startTurnEndedConsumer(bus, { store: cards, ids: nodeIds, clock, logger }, stopping.signal).catch((error: unknown) => {
    logger.error({ err: error }, 'the turn-ended consumer failed to start');
    return undefined;
  });
  // Cards are decided once the turn ends missed while away are handled (app/decide-card.ts).
  const heard = turnEndsHeard(bus, turnEnds, stopping.signal);

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    host: config.GRPC_HOST,
    healthPort: config.GRPC_HEALTH_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    auth: grpcAuth('question', config),
    services: [
      {
        definition: QuestionServiceService,
        callers: QUESTION_CALLERS,
        implementation: questionGrpc({
          store: cards,
          notifications,
          senders,
          turnEnds: heard,
          asks,
          askReads: new PgAskReads(pool),
          relayName: config.RELAY_NAME,
          ids: nodeIds,
          decisions,
          clock,
          realTime: new SystemClock(),
          progressIntervalMs: config.CARD_PROGRESS_INTERVAL_MS,
          stopping: stopping.signal,
          logger,
        }),
      },
    ],
    logger,
  });

  onShutdownSignal(logger, async () => {
    // Waiting streams would hold the server open until its timeout; they end now and their callers await again.
    stopping.abort();
    await server.shutdown();
    await decisions.stop();
    await (await archived)?.stop();
    await (await turnEnds)?.stop();
    await notifying.stop();
    await outboxWrites.stop();
    await outbox.stop();
    await prisma.$disconnect();
    await bus.close();
    await shutdownTelemetry();
  });
} catch (error) {
  logger.fatal({ err: error }, 'question service failed to start');
  await decisions.stop().catch(() => undefined);
  await prisma.$disconnect().catch(() => undefined);
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}
