/**
 * The session service process: the only place its parts are wired together.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { connectBus, ensureStream, OutboxRelay } from '@relay/bus';
import { createClock } from '@relay/clock';
import { ConfigError } from '@relay/config';
import { SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { startGrpcServer } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { loadConfig, type Config } from './config.ts';
import { nodeCrypto } from './crypto/node-crypto.ts';
import { seedRelaySettings } from './domain/relay-settings.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { sessionGrpc } from './grpc/session-grpc.ts';
import { PrismaSessionStore } from './store/prisma-session-store.ts';
import { SESSION_EVENTS_STREAM } from './wire/session-events.ts';

const logger = createLogger({ name: 'session' });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  logger.fatal({ problems: error.problems }, error.message);
  process.exit(1);
}
logger.level = config.LOG_LEVEL;

const clock = createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH);
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: config.DATABASE_URL }) });
const store = new PrismaSessionStore(prisma);

try {
  const settings = await seedRelaySettings(store, {
    agentSessionsEnabled: config.RELAY_AGENT_SESSIONS === 'on',
    maxWaitSeconds: config.RELAY_MAX_WAIT_SECONDS,
    maxTurnMinutes: config.RELAY_MAX_TURN_MINUTES,
  });
  logger.info({ settings }, 'relay settings loaded');

  const bus = await connectBus({ url: config.NATS_URL, name: 'session', logger });
  await ensureStream(bus, SESSION_EVENTS_STREAM);
  const outbox = new OutboxRelay({ db: prisma, bus, logger });
  outbox.start();

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      {
        definition: SessionServiceService,
        implementation: sessionGrpc({ store, clock, logger, ids: nodeCrypto, secrets: nodeCrypto, hasher: nodeCrypto }),
      },
    ],
    logger,
  });

  onShutdownSignal(logger, async () => {
    await server.shutdown();
    // No consumers yet; they drain here, before the outbox's last flush.
    await outbox.stop();
    try {
      await outbox.flush();
    } catch (error) {
      // The rows stay in the outbox and the next start publishes them.
      logger.warn({ err: error }, 'outbox not fully flushed at shutdown');
    }
    await prisma.$disconnect();
    await bus.close();
    await shutdownTelemetry();
  });
} catch (error) {
  logger.fatal({ err: error }, 'session service failed to start');
  await prisma.$disconnect().catch(() => undefined);
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}
