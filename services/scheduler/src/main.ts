/**
 * The scheduler service process: the only place its parts are wired together (config, bus, outbox, gRPC server and
 * shutdown order: @relay/service).
 */
import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { SchedulerServiceService } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import { createClient } from '@relay/rpc';
import { startService } from '@relay/service';
import { servicePool } from '@relay/db/service-pool';
import { startSessionEventsConsumer } from './adapters/bus/session-events-consumer.ts';
import { loadConfig } from './config.ts';
import type { Firing } from './domain/firing.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { SCHEDULER_CALLERS } from './adapters/grpc/scheduler-callers.ts';
import { schedulerGrpc } from './adapters/grpc/scheduler-grpc.ts';
import { GrpcLoopGuard } from './adapters/grpc/grpc-loop-guard.ts';
import { FiringLoop } from './adapters/loops/firing-loop.ts';
import { PrismaScheduleStore } from './adapters/store/prisma-schedule-store.ts';
import { recordFiringLateness } from './adapters/telemetry/firing-lateness.ts';

await startService({
  name: 'scheduler',
  loadConfig,
  pool: servicePool,
  database: (pool) => new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) }),
  stream: BusStreams.SCHEDULER_COMMANDS,
  // Commands are published right after the firing pass commits (onFired); the poll only picks up what a crash left behind.
  outbox: { wakeOnCommit: false },
  async start({ config, logger, clock, db: prisma, outbox, grpc, bus, serve }) {
    const store = new PrismaScheduleStore(prisma);
    const sessions = createClient(SessionServiceClient, config.SESSION_GRPC_ADDR, grpc);
    const guard = new GrpcLoopGuard(sessions);
    // A pass that fired has committed: its commands go out now, and their lateness is measured.
    const onFired = (firings: Firing[]) => {
      outbox.wake();
      recordFiringLateness(firings);
    };
    const loop = new FiringLoop({ store, guard, clock, logger, onFired });
    const changed = () => loop.nudge();

    await serve([
      {
        definition: SchedulerServiceService,
        implementation: schedulerGrpc({ store, clock, logger, changed, randomHex: (bytes) => randomBytes(bytes).toString('hex') }),
        callers: SCHEDULER_CALLERS,
      },
    ]);
    loop.start();
    // Not awaited: the session service declares its stream, and may start after this one.
    const stopping = new AbortController();
    const sessionEvents = startSessionEventsConsumer(bus, { store, clock, logger, changed, signal: stopping.signal });

    return {
      drain: async () => {
        await loop.stop();
        stopping.abort();
        await (await sessionEvents)?.stop();
        sessions.close();
      },
    };
  },
});
