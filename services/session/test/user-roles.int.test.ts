/**
 * Users' roles over the real gRPC API and a real database: a new relay's first user is its admin, later
 * ones members unless made admins, Authenticate tells the role, ListUsers never shows tokens, and the
 * migration makes the earliest existing user of an older relay its admin.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { AppError } from '@relay/errors';
import { SessionServiceClient, SessionServiceService } from '@relay/proto/relay/session/v1/session_service';
import { callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { migrate } from '@relay/db';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, type TestDatabase } from '@relay/testing';
import pg from 'pg';
import { ConfiguredCatalogue } from '../src/adapters/providers/configured-catalogue.ts';
import { nodeCrypto } from '../src/adapters/crypto/node-crypto.ts';
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
const ROLES_MIGRATION = '20261130800000_user_roles';
const NOW = new Date('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
/** Seeded before the service serves, as main seeds them; Authenticate answers them along. */
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 30, taskQuietMinutes: 10 };
let server: GrpcServer;
let client: SessionServiceClient;
const clock = new ManualClock(NOW);

beforeAll(async () => {
  const logger = createLogger({ name: 'user-roles-test', level: 'silent' });
  database = await createTestDatabase({ migrationsDir });
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const store = new PrismaSessionStore(prisma, API_MESSAGES);
  await store.seedRelaySettings(SETTINGS);
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
  await prisma?.$disconnect();
  await database?.drop();
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('users and their roles', () => {
  it('makes the first user admin even when asked for a member, later ones members unless asked, and Authenticate tells the role', async () => {
    const first = await callUnary(client, 'createUser', { name: 'Ada', role: 'member' });
    expect(first.role).toBe('admin');
    clock.advance(1000);
    const second = await callUnary(client, 'createUser', { name: 'Bob' });
    expect(second.role).toBe('member');
    clock.advance(1000);
    const third = await callUnary(client, 'createUser', { name: 'Cy', role: 'admin' });
    expect(third.role).toBe('admin');

    expect(await callUnary(client, 'authenticate', { token: first.token })).toEqual({
      caller: { userId: first.userId, sessionId: '' },
      role: 'admin',
      external: false,
      settings: SETTINGS,
    });
    expect((await callUnary(client, 'authenticate', { token: second.token })).role).toBe('member');
    const stored = await prisma.user.findMany({ orderBy: { createdAt: 'asc' }, select: { name: true, role: true } });
    expect(stored).toEqual([
      { name: 'Ada', role: 'admin' },
      { name: 'Bob', role: 'member' },
      { name: 'Cy', role: 'admin' },
    ]);

    const { users } = await callUnary(client, 'listUsers', {});
    expect(users.map((user) => [user.name, user.role])).toEqual([
      ['Ada', 'admin'],
      ['Bob', 'member'],
      ['Cy', 'admin'],
    ]);
    expect(users[0]).toEqual({ id: first.userId, name: 'Ada', role: 'admin', createdAt: NOW });
    expect(JSON.stringify(users)).not.toContain(first.token);
  });

  it('refuses an unknown role with REMOTE_RELAY_INVALID_INPUT and creates nobody', async () => {
    const before = await prisma.user.count();
    const error = await refusal(callUnary(client, 'createUser', { name: 'Dee', role: 'owner' }));
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain('role must be one of: admin, member');
    expect(await prisma.user.count()).toBe(before);
    expect(await prisma.apiToken.count({ where: { user: { name: 'Dee' } } })).toBe(0);
  });
});

describe('the user_roles migration', () => {
  it('makes the earliest-created existing user the admin and the rest members', async () => {
    const older = await mkdtemp(join(tmpdir(), 'session-migrations-'));
    const db = await createTestDatabase();
    try {
      for (const name of await readdir(migrationsDir)) {
        if (name < ROLES_MIGRATION) await cp(join(migrationsDir, name), join(older, name), { recursive: true });
      }
      await migrate({ databaseUrl: db.url, migrationsDir: older });
      const sql = new pg.Client({ connectionString: db.url });
      await sql.connect();
      try {
        await sql.query(
          `INSERT INTO users (id, name, created_at) VALUES ('u-late', 'Late', '2026-11-02'), ('u-early', 'Early', '2026-11-01'), ('u-mid', 'Mid', '2026-11-01T12:00:00Z')`,
        );
        expect(await migrate({ databaseUrl: db.url, migrationsDir })).toContain(ROLES_MIGRATION);
        const { rows } = await sql.query<{ id: string; role: string }>('SELECT id, role::text AS role FROM users ORDER BY id');
        expect(rows).toEqual([
          { id: 'u-early', role: 'admin' },
          { id: 'u-late', role: 'member' },
          { id: 'u-mid', role: 'member' },
        ]);
      } finally {
        await sql.end();
      }
    } finally {
      await rm(older, { recursive: true, force: true });
      await db.drop();
    }
  });
});
