/**
 * The pairing service process: the only place its parts are wired together.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { connectBus, ensureStream, OutboxRelay } from '@relay/bus';
import { createClock } from '@relay/clock';
import { ConfigError } from '@relay/config';
import { startGrpcServer } from '@relay/rpc';
import { PairingServiceService } from '@relay/proto/relay/pairing/v1/pairing_service';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { PAIRING_EVENTS_STREAM } from './bus/pairing-events.ts';
import { loadConfig, type Config } from './config.ts';
import { nodeSecrets } from './crypto/node-secrets.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { pairingGrpc } from './grpc/pairing-grpc.ts';
import { httpRelayLink } from './http/relay-client.ts';
import { PrismaPairedRelayStore } from './store/prisma-paired-relay-store.ts';
import { PrismaPairingCodeStore } from './store/prisma-pairing-code-store.ts';
import { PrismaPairingSettingsStore } from './store/prisma-pairing-settings-store.ts';

const logger = createLogger({ name: 'pairing' });

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

try {
  const bus = await connectBus({ url: config.NATS_URL, name: 'pairing', logger });
  await ensureStream(bus, PAIRING_EVENTS_STREAM);
  const outbox = new OutboxRelay({ db: prisma, bus, logger });
  outbox.start();

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    services: [
      {
        definition: PairingServiceService,
        implementation: pairingGrpc({
          relays: new PrismaPairedRelayStore(prisma),
          codes: new PrismaPairingCodeStore(prisma),
          settings: new PrismaPairingSettingsStore(prisma),
          secrets: nodeSecrets,
          link: httpRelayLink,
          clock,
          logger,
        }),
      },
    ],
    logger,
  });

  onShutdownSignal(logger, async () => {
    await server.shutdown();
    // No consumers yet; they drain here, before the outbox's last flush.
    await outbox.stop();
    await prisma.$disconnect();
    await bus.close();
    await shutdownTelemetry();
  });
} catch (error) {
  logger.fatal({ err: error }, 'pairing service failed to start');
  await prisma.$disconnect().catch(() => undefined);
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}
