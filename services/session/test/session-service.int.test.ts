import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import { SessionOrigin, SessionState } from '@relay/proto/relay/session/v1/session';
import { SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, TEST_NATS_USER, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams, SessionEvents } from '@relay/proto/relay/bus-contracts';
import { ConfiguredCatalogue } from '../src/adapters/providers/configured-catalogue.ts';
import { nodeCrypto } from '../src/adapters/crypto/node-crypto.ts';
import { NEW_SESSION_SETTINGS } from '../src/domain/sessions/session.ts';
import { seedRelaySettings } from '../src/app/settings/relay-settings.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { SESSION_CALLERS } from '../src/adapters/grpc/session-callers.ts';
import { sessionGrpc } from '../src/adapters/grpc/session-grpc.ts';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { PrismaSessionStore } from '../src/adapters/store/prisma-session-store.ts';
import { nodeRealFolders } from '../src/adapters/fs/real-folders.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 45, taskQuietMinutes: 10 };

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let store: PrismaSessionStore;
let bus: Bus;
let outbox: OutboxRelay;
let server: GrpcServer;
let client: SessionServiceClient;
const clock = new ManualClock(NOW);

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  const logger = createLogger({ name: 'session-test', level: 'silent' });
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  store = new PrismaSessionStore(prisma, API_MESSAGES);
  await seedRelaySettings(store, SETTINGS);
  bus = await connectBus({ url: nats.url, name: 'session-test', logger, ...nats.credentials(TEST_NATS_USER) });
  await ensureStream(bus, BusStreams.SESSION_EVENTS);
  outbox = new OutboxRelay({ db: prisma, bus, logger });
  server = await startGrpcServer({
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
          catalogue: new ConfiguredCatalogue({}),
          relay: { name: 'desk', defaultCwd: '/tmp', allowedRoots: ['/tmp'] },
          folders: nodeRealFolders,
        }),
      },
    ],
    logger,
  });
  client = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway'));
});

afterAll(async () => {
  client?.close();
  await server?.shutdown();
  await outbox?.stop();
  await prisma?.$disconnect();
  await bus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

describe('SessionService over gRPC', () => {
  it('creates a user and an external session, authenticates the session token, and lists the session', async () => {
    const { userId, token: userToken } = await callUnary(client, 'createUser', { name: 'Ada' });
    expect(userToken).toMatch(/^rly_u_[A-Za-z0-9_-]{43}$/);

    const created = await callUnary(client, 'createExternalSession', { userId, title: 'My IDE' });
    expect(created.token).toMatch(/^rly_s_[A-Za-z0-9_-]{43}$/);
    expect(created.session).toMatchObject({
      userId,
      title: 'My IDE',
      provider: 'external',
      model: '',
      origin: SessionOrigin.SESSION_ORIGIN_EXTERNAL,
      state: SessionState.SESSION_STATE_IDLE,
      archived: false,
      messageCount: 0,
      createdAt: NOW,
      lastActivityAt: NOW,
    });
    const sessionId = created.session!.id;

    const asSession = await callUnary(client, 'authenticate', { token: created.token });
    expect(asSession.caller).toEqual({ userId, sessionId });
    const asUser = await callUnary(client, 'authenticate', { token: userToken });
    expect(asUser.caller).toEqual({ userId, sessionId: '' });

    clock.advance(60_000);
    const later = await callUnary(client, 'createExternalSession', { userId, title: '' });
    const listed = await callUnary(client, 'listSessions', { userId, scope: '', limit: 100, offset: 0 });
    expect(listed.sessions.map((s) => s.id)).toEqual([later.session!.id, sessionId]);
    expect((await callUnary(client, 'listSessions', { userId, scope: 'archived', limit: 100, offset: 0 })).sessions).toEqual([]);

    // Only hashes are stored.
    const stored = await prisma.apiToken.findMany();
    expect(stored.map((t) => t.tokenHash).sort()).toEqual([userToken, created.token, later.token].map((t) => nodeCrypto.hash(t)).sort());
  });

  it('refuses a bad token with UNAUTHENTICATED', async () => {
    for (const token of ['', 'rly_s_not-a-real-token', 'nonsense']) {
      const error = await refusal(callUnary(client, 'authenticate', { token }));
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.kind).toBe('unauthenticated');
    }
  });

  it('answers invalid input and unknown users with their codes', async () => {
    expect((await refusal(callUnary(client, 'createUser', { name: ' ' }))).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    const unknown = await refusal(callUnary(client, 'createExternalSession', { userId: 'nobody', title: 't' }));
    expect([unknown.code, unknown.kind]).toEqual(['REMOTE_RELAY_NOT_FOUND', 'not_found']);
    const scope = await refusal(callUnary(client, 'listSessions', { userId: 'u', scope: 'recent', limit: 100, offset: 0 }));
    expect([scope.code, scope.kind, scope.details['field']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'scope']);
    // A listing is a page: no caller may ask for every session (0), nor for more than a page holds.
    for (const limit of [0, 101]) {
      const everything = await refusal(callUnary(client, 'listSessions', { userId: 'u', scope: '', limit, offset: 0 }));
      expect([everything.code, everything.details['field']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', 'limit']);
    }
  });

  it('serves the settings seeded at boot', async () => {
    expect((await callUnary(client, 'getRelaySettings', {})).settings).toEqual(SETTINGS);
    // A second boot with other defaults leaves the stored row alone.
    await seedRelaySettings(store, { agentSessionsEnabled: false, maxWaitSeconds: 120, maxTurnMinutes: 1, taskQuietMinutes: 5 });
    expect((await callUnary(client, 'getRelaySettings', {})).settings).toEqual(SETTINGS);
  });

  it('changes the settings over UpdateRelaySettings; a bad value names its field and changes nothing', async () => {
    const bad = await refusal(callUnary(client, 'updateRelaySettings', { taskQuietMinutes: 5, maxWaitSeconds: 60 }));
    expect([bad.code, bad.kind, bad.details['field']]).toEqual(['REMOTE_RELAY_INVALID_INPUT', 'invalid_argument', 'max_wait_seconds']);
    expect((await callUnary(client, 'getRelaySettings', {})).settings).toEqual(SETTINGS);
    try {
      const updated = await callUnary(client, 'updateRelaySettings', { agentSessionsEnabled: false, maxWaitSeconds: 3600, taskQuietMinutes: 15 });
      const now = { ...SETTINGS, agentSessionsEnabled: false, maxWaitSeconds: 3600, taskQuietMinutes: 15 };
      expect(updated).toEqual({ settings: now, changed: ['agent_sessions_enabled', 'max_wait_seconds', 'task_quiet_minutes'] });
      expect((await callUnary(client, 'getRelaySettings', {})).settings).toEqual(now);
    } finally {
      await callUnary(client, 'updateRelaySettings', SETTINGS);
    }
  });

  it('publishes session_created on SESSION_EVENTS with Nats-Msg-Id = the outbox id', async () => {
    const { userId } = await callUnary(client, 'createUser', { name: 'Grace' });
    const { session } = await callUnary(client, 'createExternalSession', { userId, title: 'evented' });
    const [row] = await prisma.outboxMessage.findMany({ where: { payload: { path: ['session', 'id'], equals: session!.id } } });
    expect(row).toBeDefined();

    await outbox.flush();
    const message = await bus.jsm.streams.getMessage(BusStreams.SESSION_EVENTS.name, { last_by_subj: SessionEvents.SESSION_CREATED.subject });
    expect(message).not.toBeNull();
    expect(message!.header.get('Nats-Msg-Id')).toBe(row!.id);
    expect(message!.json()).toMatchObject({
      eventId: row!.id,
      occurredAt: clock.now().toISOString(),
      session: { id: session!.id, userId, title: 'evented', origin: 'SESSION_ORIGIN_EXTERNAL', state: 'SESSION_STATE_IDLE' },
    });
    const published = await prisma.outboxMessage.findUnique({ where: { id: row!.id } });
    expect(published?.publishedAt).not.toBeNull();
  });

  it('leaves no session and no outbox row when the creation rolls back', async () => {
    const { userId, token: userToken } = await callUnary(client, 'createUser', { name: 'Edsger' });
    const sessionsBefore = await prisma.session.count();
    const outboxBefore = await prisma.outboxMessage.count();
    const session = {
      id: nodeCrypto.newId(),
      userId,
      title: 'doomed',
      provider: 'external',
      model: '',
      origin: 'external' as const,
      state: 'idle' as const,
      cwd: '',
      archived: false,
      messageCount: 0,
      createdAt: NOW,
      lastActivityAt: NOW,
      ...NEW_SESSION_SETTINGS,
    };
    // The token insert comes last and collides with the user's token: the whole transaction must go.
    const clash = { tokenHash: nodeCrypto.hash(userToken), kind: 'session' as const, userId, sessionId: session.id, createdAt: NOW, expiresAt: null };
    await expect(store.createSession(session, clash, { eventId: nodeCrypto.newId(), occurredAt: NOW, session })).rejects.toThrow();
    expect(await prisma.session.count()).toBe(sessionsBefore);
    expect(await prisma.session.findUnique({ where: { id: session.id } })).toBeNull();
    expect(await prisma.outboxMessage.count()).toBe(outboxBefore);
  });
});
