// Authenticate's read against a real PostgreSQL: a token by its hash with its user and its session, and the relay's
// settings, in one statement (one transaction), its expiry read as the UTC instant Prisma wrote.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { authenticate } from '../src/app/users/authenticate.ts';
import { nodeCrypto } from '../src/adapters/crypto/node-crypto.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-03T10:00:00.000Z');
/** A console sign-in's expiry, with milliseconds: read in the process's time zone it would be hours off. */
const EXPIRES = new Date('2026-12-03T18:30:15.123Z');
const TOKENS = {
  personal: 'rly_u_personal',
  signedIn: 'rly_u_signed-in',
  removed: 'rly_u_removed',
  agent: 'rly_s_agent',
  hosted: 'rly_s_hosted',
  shelved: 'rly_s_shelved',
};
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 45, taskQuietMinutes: 20 };
const hash = (token: string) => nodeCrypto.hash(token);

let database: TestDatabase;
let pool: pg.Pool;
/** On the `postgres` database: its own statements are not counted in the test's. */
let observer: pg.Client;
let tokens: PgTokenReads;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  try {
    await prisma.relaySettings.create({ data: { id: 1, ...SETTINGS } });
    await prisma.user.createMany({
      data: [
        { id: 'ada', name: 'Ada', role: 'admin', createdAt: NOW },
        { id: 'bo', name: 'Bo', role: 'member', createdAt: NOW },
        { id: 'cy', name: 'Cy', role: 'member', createdAt: NOW, removedAt: NOW },
      ],
    });
    const session = { userId: 'bo', model: '', state: 'idle' as const, cwd: '', createdAt: NOW, lastActivityAt: NOW };
    await prisma.session.createMany({
      data: [
        { ...session, id: 'agent', title: 'My editor', provider: 'external', origin: 'external' },
        { ...session, id: 'hosted', title: 'Worker', provider: 'script', origin: 'hosted' },
        { ...session, id: 'shelved', title: 'Old', provider: 'external', origin: 'external', archived: true },
      ],
    });
    const token = (value: string, kind: 'user' | 'session', userId: string, sessionId: string | null = null, expiresAt: Date | null = null) => ({
      tokenHash: hash(value),
      kind,
      userId,
      sessionId,
      createdAt: NOW,
      expiresAt,
    });
    await prisma.apiToken.createMany({
      data: [
        token(TOKENS.personal, 'user', 'ada'),
        token(TOKENS.signedIn, 'user', 'ada', null, EXPIRES),
        token(TOKENS.removed, 'user', 'cy'),
        token(TOKENS.agent, 'session', 'bo', 'agent'),
        token(TOKENS.hosted, 'session', 'bo', 'hosted'),
        token(TOKENS.shelved, 'session', 'bo', 'shelved'),
      ],
    });
  } finally {
    // Its connections end, and with them their statistics are reported: none of them is counted below.
    await prisma.$disconnect();
  }
  // One connection: the statistics it reports are all the test's database sees.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  tokens = new PgTokenReads(pool);
  const server = new URL(database.url);
  server.pathname = '/postgres';
  observer = new pg.Client({ connectionString: server.toString() });
  await observer.connect();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await observer?.end();
  await pool?.end();
  await database?.drop();
});

/**
 * The transactions the test's database has counted, once the pool's connection reported its own (it does as it goes
 * idle after the flush asked for here, before it answers); that ask is one transaction itself.
 */
async function transactions(): Promise<number> {
  await pool.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await observer.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [database.name]);
  return Number(rows[0]!.n);
}

it("reads a session token with its user and session, and the relay's settings, in one statement, one transaction", async () => {
  await tokens.lookUpToken(hash(TOKENS.agent)); // the connection prepares the statement once, as any first call
  const query = vi.spyOn(pool, 'query');
  const before = await transactions();
  const { holder, settings } = await tokens.lookUpToken(hash(TOKENS.agent));
  const after = await transactions();
  const statements = query.mock.calls.length - 2; // less the two flushes
  query.mockRestore();
  expect(holder).toEqual({
    kind: 'session',
    expiresAt: null,
    user: { id: 'bo', role: 'member' },
    session: { id: 'agent', archived: false, origin: 'external' },
  });
  expect(settings).toEqual(SETTINGS);
  expect(statements).toBe(1);
  expect(after - before - 1).toBe(1);
});

it("reads a sign-in token's expiry as the UTC instant it holds, whatever the process's time zone", async () => {
  vi.stubEnv('TZ', 'Pacific/Chatham');
  expect(new Date(EXPIRES).getTimezoneOffset()).not.toBe(0);
  expect((await tokens.lookUpToken(hash(TOKENS.signedIn))).holder).toEqual({
    kind: 'user',
    expiresAt: EXPIRES,
    user: { id: 'ada', role: 'admin' },
    session: undefined,
  });
  vi.unstubAllEnvs();
});

it('reads a removed user as none, a user token with no session, and an archived session as it is', async () => {
  expect((await tokens.lookUpToken(hash(TOKENS.personal))).holder).toEqual({
    kind: 'user',
    expiresAt: null,
    user: { id: 'ada', role: 'admin' },
    session: undefined,
  });
  expect((await tokens.lookUpToken(hash(TOKENS.removed))).holder).toEqual({ kind: 'user', expiresAt: null, user: undefined, session: undefined });
  expect((await tokens.lookUpToken(hash(TOKENS.hosted))).holder?.session).toEqual({ id: 'hosted', archived: false, origin: 'hosted' });
  expect((await tokens.lookUpToken(hash(TOKENS.shelved))).holder?.session).toEqual({ id: 'shelved', archived: true, origin: 'external' });
  expect(await tokens.lookUpToken(hash('rly_u_unknown'))).toEqual({ holder: undefined, settings: SETTINGS });
});

it('makes the callers Authenticate answers, and refuses the rest, from what it reads', async () => {
  const deps = { tokens, hasher: nodeCrypto };
  expect((await authenticate(deps, TOKENS.agent, NOW)).caller).toEqual({ userId: 'bo', role: 'member', sessionId: 'agent', external: true });
  expect((await authenticate(deps, TOKENS.hosted, NOW)).caller).toEqual({ userId: 'bo', role: 'member', sessionId: 'hosted' });
  expect(await authenticate(deps, TOKENS.signedIn, NOW)).toEqual({ caller: { userId: 'ada', role: 'admin' }, settings: SETTINGS });
  for (const refused of [TOKENS.removed, TOKENS.shelved, 'rly_u_unknown']) {
    await expect(authenticate(deps, refused, NOW), refused).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  }
  await expect(authenticate(deps, TOKENS.signedIn, EXPIRES)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
});
