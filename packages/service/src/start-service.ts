/**
 * One gRPC service's process, start to end (every main.ts but the gateway's): its config, logger and clock
 * (open-service.ts), its PostgreSQL pool and Prisma client, the bus with its stream and the outbox, then what the
 * service starts itself; the gRPC server on the config's address. On SIGTERM/SIGINT it stops in the house order:
 * the server stops accepting, the service drains its consumers and loops, the outbox flushes last, the database
 * disconnects, the bus closes, telemetry shuts down. A start that fails is logged, the database disconnected, exit 1.
 */
import { connectBus, ensureStream, OUTBOX_CHANNEL, OUTBOX_SAFETY_POLL_MS, OutboxRelay, type Bus, type StreamOptions, type TransactionalSql } from '@relay/bus';
import { natsClientOptions, streamSettings } from '@relay/config';
import { compileWasmBaselineOnly } from '@relay/db/compile-wasm-baseline-only';
import { listen } from '@relay/db/listen';
import { ungated } from '@relay/db/transaction-gate';
import { grpcAuth, startGrpcServer, type GrpcAuth, type GrpcServer, type GrpcService, type ServiceIdentity } from '@relay/rpc';
import { shutdownTelemetry, type Logger } from '@relay/telemetry';
import type pg from 'pg';
import { openService, stopOnSignal, type OpenedService, type ServiceBaseConfig } from './open-service.ts';

/** The variables startService reads (each service's config.ts declares them through @relay/config). */
export type ServiceConfig = ServiceBaseConfig &
  Parameters<typeof natsClientOptions>[0] &
  Parameters<typeof grpcAuth>[1] & {
    DATABASE_URL: string;
    NATS_STREAM_REPLICAS: number;
    NATS_STREAM_MAX_AGE_HOURS: number;
    NATS_STREAM_MAX_BYTES: number;
    GRPC_PORT: number;
    GRPC_HOST: string;
    GRPC_HEALTH_PORT?: number | undefined;
    GRPC_MAX_CONNECTION_AGE_MS?: number | undefined;
    GRPC_MAX_CONNECTION_AGE_GRACE_MS?: number | undefined;
  };

/** A Prisma client: what startService disconnects (with disposeExternalPool, that also ends the pool). */
interface Disconnectable {
  $disconnect(): Promise<void>;
}

export interface ServiceSpec<C extends ServiceConfig, D extends Disconnectable, P extends pg.Pool> {
  name: ServiceIdentity;
  loadConfig: () => C;
  /** The service's pool (@relay/db/service-pool): one line for everything, or its reads and transactions in lanes. */
  pool: (connectionString: string) => P;
  /** The service's Prisma client on its pool; its $disconnect must end the pool (PrismaPg's disposeExternalPool). */
  database: (pool: P, logger: Logger) => D;
  /** The stream the service publishes to (BusStreams); declared at each start. */
  stream: Omit<StreamOptions, 'replicas' | 'maxAgeMs' | 'maxBytes'>;
  outbox: {
    /** What the outbox reads its rows with; the Prisma client when left out. */
    db?: (parts: { pool: P; db: D }) => TransactionalSql;
    /**
     * Woken when a transaction that wrote outbox rows commits (PostgreSQL NOTIFY, here or on another replica);
     * otherwise the service wakes it itself. The poll is a safety net either way.
     */
    wakeOnCommit: boolean;
  };
  /** What the service starts: its stores, consumers, loops and gRPC services (through `serve`). */
  start: (parts: ServiceParts<C, D, P>) => Promise<StartedService>;
}

export interface ServiceParts<C, D, P> extends OpenedService<C> {
  /** The pool the Prisma client and the service's reads in plain SQL share. */
  pool: P;
  db: D;
  bus: Bus;
  outbox: OutboxRelay;
  /** How this service proves itself to the others on gRPC, for its clients. */
  grpc: GrpcAuth;
  /** Starts the gRPC server on the config's address (port, host, health port, connection age); it stops first. */
  serve: (services: GrpcService[]) => Promise<GrpcServer>;
}

export interface StartedService {
  /** Before the server stops accepting: what must end while it still answers (waits, running turns). */
  beforeShutdown?: () => Promise<void>;
  /** After the server stopped accepting and before the outbox's last flush: consumers, loops, clients. */
  drain: () => Promise<void>;
}

/** Starts the service; the process then runs until SIGTERM/SIGINT. */
export async function startService<C extends ServiceConfig, D extends Disconnectable, P extends pg.Pool>(spec: ServiceSpec<C, D, P>): Promise<void> {
  const opened = openService(spec.name, spec.loadConfig);
  const { config, logger } = opened;
  // Before the first query compiles Prisma's WebAssembly query compiler.
  compileWasmBaselineOnly();
  const pool = spec.pool(config.DATABASE_URL);
  const db = spec.database(pool, logger);
  const grpc = grpcAuth(spec.name, config);
  try {
    const bus = await connectBus({ ...natsClientOptions(config), name: spec.name, logger });
    await ensureStream(bus, { ...spec.stream, ...streamSettings(config) });
    const outbox = new OutboxRelay({
      // Behind a transaction gate's client (@relay/db/transaction-gate) the outbox's rounds are never refused.
      db: spec.outbox.db?.({ pool, db }) ?? (ungated(db) as unknown as TransactionalSql),
      bus,
      logger,
      pollIntervalMs: OUTBOX_SAFETY_POLL_MS,
    });
    outbox.start();
    const outboxWrites = spec.outbox.wakeOnCommit
      ? await listen({ connectionString: config.DATABASE_URL, channel: OUTBOX_CHANNEL, onNotify: () => outbox.wake(), logger })
      : undefined;
    let server: GrpcServer | undefined;
    const serve = async (services: GrpcService[]) => {
      server = await startGrpcServer({
        port: config.GRPC_PORT,
        host: config.GRPC_HOST,
        healthPort: config.GRPC_HEALTH_PORT,
        maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
        maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
        auth: grpc,
        services,
        logger,
      });
      return server;
    };
    const started = await spec.start({ ...opened, pool, db, bus, outbox, grpc, serve });

    stopOnSignal(logger, async () => {
      await started.beforeShutdown?.();
      await server?.shutdown();
      await started.drain();
      await outboxWrites?.stop();
      await outbox.stop();
      await db.$disconnect();
      await bus.close();
    });
  } catch (error) {
    logger.fatal({ err: error }, `${spec.name} service failed to start`);
    await db.$disconnect().catch(() => undefined);
    await shutdownTelemetry().catch(() => undefined);
    process.exit(1);
  }
}
