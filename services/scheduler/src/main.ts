/**
 * The scheduler service process: the only place its parts are wired together.
 */
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { servicePool } from '@relay/db/service-pool';
import { connectBus, ensureStream, OUTBOX_SAFETY_POLL_MS, OutboxRelay } from '@relay/bus';
import { createClock } from '@relay/clock';
import { ConfigError, natsClientOptions, streamSettings } from '@relay/config';
import { SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { createClient, grpcAuth, startGrpcServer } from '@relay/rpc';
import { createLogger, onShutdownSignal, shutdownTelemetry } from '@relay/telemetry';
import { compileWasmBaselineOnly } from '@relay/db/compile-wasm-baseline-only';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { startSessionEventsConsumer } from './adapters/bus/session-events-consumer.ts';
import { loadConfig, type Config } from './config.ts';
import type { Firing } from './domain/firing.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { SCHEDULER_CALLERS } from './adapters/grpc/scheduler-callers.ts';
import { schedulerGrpc } from './adapters/grpc/scheduler-grpc.ts';
import { GrpcLoopGuard } from './adapters/grpc/grpc-loop-guard.ts';
import { FiringLoop } from './adapters/loops/firing-loop.ts';
import { PrismaScheduleStore } from './adapters/store/prisma-schedule-store.ts';
import { recordFiringLateness } from './adapters/telemetry/firing-lateness.ts';

const logger = createLogger({ name: 'scheduler' });

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  logger.fatal({ problems: error.problems }, error.message);
  process.exit(1);
}
logger.level = config.LOG_LEVEL;

const clock = createClock(config.RELAY_CLOCK, config.RELAY_CLOCK_EPOCH, { file: config.RELAY_CLOCK_CONTROL, name: 'scheduler' });
// Before the first query compiles Prisma's WebAssembly query compiler.
compileWasmBaselineOnly();
const prisma = new PrismaClient({ adapter: new PrismaPg(servicePool(config.DATABASE_URL), { disposeExternalPool: true }) });
const store = new PrismaScheduleStore(prisma);
const grpc = grpcAuth('scheduler', config);
const sessions = createClient(SessionServiceClient, config.SESSION_GRPC_ADDR, grpc);
const guard = new GrpcLoopGuard(sessions);
let loop: FiringLoop;
const changed = () => loop.nudge();

try {
  const bus = await connectBus({ ...natsClientOptions(config), name: 'scheduler', logger });
  await ensureStream(bus, { ...BusStreams.SCHEDULER_COMMANDS, ...streamSettings(config) });
  // Commands are published right after the firing pass commits; the poll only picks up what a crash left behind.
  const outbox = new OutboxRelay({ db: prisma, bus, logger, pollIntervalMs: OUTBOX_SAFETY_POLL_MS });
  outbox.start();
  // A pass that fired has committed: its commands go out now, and their lateness is measured.
  const onFired = (firings: Firing[]) => {
    outbox.wake();
    recordFiringLateness(firings);
  };
  loop = new FiringLoop({ store, guard, clock, logger, onFired });

  const server = await startGrpcServer({
    port: config.GRPC_PORT,
    host: config.GRPC_HOST,
    healthPort: config.GRPC_HEALTH_PORT,
    maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
    maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
    auth: grpc,
    services: [
      {
        definition: SchedulerServiceService,
        implementation: schedulerGrpc({ store, clock, logger, changed, randomHex: (bytes) => randomBytes(bytes).toString('hex') }),
        callers: SCHEDULER_CALLERS,
      },
    ],
    logger,
  });
  loop.start();
  // Not awaited: the session service declares its stream, and may start after this one.
  const stopping = new AbortController();
  const sessionEvents = startSessionEventsConsumer(bus, { store, clock, logger, changed, signal: stopping.signal });

  onShutdownSignal(logger, async () => {
    await server.shutdown();
    await loop.stop();
    stopping.abort();
    await (await sessionEvents)?.stop();
    sessions.close();
    await outbox.stop();
    await prisma.$disconnect();
    await bus.close();
    await shutdownTelemetry();
  });
} catch (error) {
  logger.fatal({ err: error }, 'scheduler service failed to start');
  await prisma.$disconnect().catch(() => undefined);
  await shutdownTelemetry().catch(() => undefined);
  process.exit(1);
}
