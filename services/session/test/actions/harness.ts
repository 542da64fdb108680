import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { connectBus, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import { CreateSessionRequest, SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { ConfiguredCatalogue, type CatalogueSettings } from '../../src/adapters/providers/configured-catalogue.ts';
import type { Allowance } from '../../src/domain/usage/usage.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import { seedRelaySettings } from '../../src/app/settings/relay-settings.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { SESSION_CALLERS } from '../../src/adapters/grpc/session-callers.ts';
import { sessionGrpc } from '../../src/adapters/grpc/session-grpc.ts';
import { PrismaExternalInbox } from '../../src/adapters/store/prisma-external-inbox.ts';
import { PgSessionReads } from '../../src/adapters/store/pg-session-reads.ts';
import { PgTokenReads } from '../../src/adapters/store/pg-token-reads.ts';
import { PrismaSessionStore } from '../../src/adapters/store/prisma-session-store.ts';
import { nodeRealFolders } from '../../src/adapters/fs/real-folders.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
export const NOW = new Date('2026-11-30T10:00:00.000Z');
export const RELAY = { name: 'build-box', defaultCwd: '/home/dev', allowedRoots: ['/home/dev', '/tmp'] };

/** The session service's RPCs served for real (PostgreSQL, NATS, gRPC on a free port), with no turn runner. */
export interface Harness {
  prisma: PrismaClient;
  bus: Bus;
  outbox: OutboxRelay;
  clock: ManualClock;
  client: SessionServiceClient;
  /** Every row the session actions could write, to show a refusal changed nothing. */
  dumpState(): Promise<unknown>;
  /** A new user's id. */
  newUser(name?: string): Promise<string>;
  /** A session the user starts on script with a first prompt: its id. */
  newSession(userId: string, overrides?: Partial<CreateSessionRequest>): Promise<string>;
  stop(): Promise<void>;
}

/** What a test changes about the relay it starts. */
export interface HarnessOptions {
  /** More provider configuration (credentials, model lists). */
  settings?: CatalogueSettings;
  /** The providers whose plug-ins run here (default script and claude). */
  runs?: string[];
  /** When given, the relay accounts usage in its database against these allowances (caps, usage). */
  usageAllowances?: Record<string, Allowance>;
}

/**
 * Starts the service: script and Claude (subscription) run here; Claude API, Copilot, DeepSeek and the rest
 * are listed with their default model lists but not available.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logger = createLogger({ name: 'session-actions-test', level: 'silent' });
  const [database, nats]: [TestDatabase, NatsServer] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  const pool = new pg.Pool({ connectionString: database.url });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const store = new PrismaSessionStore(prisma, API_MESSAGES);
  await seedRelaySettings(store, { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 });
  const bus = await connectBus({ url: nats.url, name: 'session-actions-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.SESSION_EVENTS);
  const outbox = new OutboxRelay({ db: prisma, bus, logger });
  const clock = new ManualClock(NOW);
  const namesTaken = new Map<string, number>();
  const runs = options.runs ?? ['script', 'claude'];
  const usage = options.usageAllowances === undefined ? undefined : { ledger: new PrismaUsageLedger(prisma), allowances: options.usageAllowances, priced: [] };
  const catalogue = new ConfiguredCatalogue(
    {
      CLAUDE_CODE_OAUTH_TOKEN: 'configured',
      RELAY_CLAUDE_MODELS: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'],
      RELAY_COPILOT_MODELS: ['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini'],
      RELAY_DEEPSEEK_MODELS: ['deepseek-chat', 'deepseek-reasoner'],
      ...options.settings,
    },
    {
      availability: (id) => (runs.includes(id) ? { available: true, reason: '' } : undefined),
      ...(usage === undefined ? {} : { usage: { ...usage, now: () => clock.now() } }),
    },
  );
  const server: GrpcServer = await startGrpcServer({
    auth: credentials.auth('session'),
    port: 0,
    host: '127.0.0.1',
    services: [
      {
        definition: SessionServiceService,
        callers: SESSION_CALLERS,
        implementation: sessionGrpc({
          store,
          reads: new PgSessionReads(pool),
          tokens: new PgTokenReads(pool),
          clock,
          logger,
          ids: nodeCrypto,
          secrets: nodeCrypto,
          hasher: nodeCrypto,
          catalogue,
          relay: RELAY,
          folders: nodeRealFolders,
          inbox: new PrismaExternalInbox(prisma),
          ...(usage === undefined ? {} : { usage }),
        }),
      },
    ],
    logger,
  });
  const client = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway'));
  const byId = { orderBy: { id: 'asc' as const } };

  return {
    prisma,
    bus,
    outbox,
    clock,
    client,
    dumpState: async () => {
      const [sessions, groups, messages, turns, grants, outboxRows, tokens] = await Promise.all([
        prisma.session.findMany(byId),
        prisma.group.findMany(byId),
        prisma.message.findMany(byId),
        prisma.turn.findMany(byId),
        prisma.conversationGrant.findMany({ orderBy: [{ sessionId: 'asc' }, { kind: 'asc' }] }),
        prisma.outboxMessage.findMany({ ...byId, select: { id: true, subject: true, payload: true } }),
        prisma.apiToken.findMany({ orderBy: { tokenHash: 'asc' } }),
      ]);
      return { sessions, groups, messages, turns, grants, outboxRows, tokens };
    },
    // User names are unique: a name asked for again gets a number ("Ada 2").
    newUser: async (name = 'Ada') => {
      const taken = (namesTaken.get(name) ?? 0) + 1;
      namesTaken.set(name, taken);
      return (await callUnary(client, 'createUser', { name: taken === 1 ? name : `${name} ${taken}` })).userId;
    },
    newSession: async (userId, overrides = {}) => {
      const created = await callUnary(
        client,
        'createSession',
        CreateSessionRequest.fromPartial({ userId, text: 'reply hello', cwd: '/home/dev/shop', ...overrides }),
      );
      return created.session!.id;
    },
    stop: async () => {
      client.close();
      await server.shutdown();
      await outbox.stop();
      await prisma.$disconnect();
      await bus.close();
      await Promise.all([nats.stop(), database.drop()]);
    },
  };
}

/** The AppError a call fails with (the test fails when it succeeds). */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}
