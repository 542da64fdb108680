// list_sessions' order and pages as PgSessionReads reads them from a real PostgreSQL: the most recently active first
// (ties by newest creation, then id), a page of the scope with its total, counted apart only when the page is full, and
// read through the index in that order, whatever plan PostgreSQL keeps for the prepared statement.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const SINCE = new Date(NOW.getTime() - 3_600_000);
const at = (minute: number) => new Date(NOW.getTime() - minute * 60_000);

let database: TestDatabase;
let pool: pg.Pool;
let prisma: PrismaClient;
let reads: PgSessionReads;
/** The active sessions' ids in the listing's order, as the seed made them. */
const ACTIVE: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  // One connection: the one the listing's statement is prepared on.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  reads = new PgSessionReads(pool);
  await prisma.user.createMany({ data: ['u1', 'u2'].map((id) => ({ id, name: id, createdAt: NOW })) });
  const base = { model: '', state: 'idle' as const, cwd: '', provider: 'script', origin: 'hosted' as const };
  // Three at one instant (the newest created first, then by id), then one a minute apart, stored in no order.
  const tied = [
    { id: 'tie-b', createdAt: at(10) },
    { id: 'tie-newest', createdAt: at(5) },
    { id: 'tie-a', createdAt: at(10) },
  ];
  const spread = Array.from({ length: 247 }, (_, n) => ({ id: `s${String(n).padStart(3, '0')}`, minutes: n + 1 }));
  await prisma.session.createMany({
    data: [
      ...spread.reverse().map(({ id, minutes }) => ({ ...base, id, userId: 'u1', title: id, createdAt: at(minutes), lastActivityAt: at(minutes) })),
      ...tied.map(({ id, createdAt }) => ({ ...base, id, userId: 'u1', title: id, createdAt, lastActivityAt: NOW })),
      { ...base, id: 'shelved', userId: 'u1', title: 'Old', archived: true, createdAt: NOW, lastActivityAt: NOW },
      { ...base, id: 'not-mine', userId: 'u2', title: 'Theirs', createdAt: NOW, lastActivityAt: NOW },
    ],
  });
  ACTIVE.push('tie-newest', 'tie-a', 'tie-b', ...spread.reverse().map(({ id }) => id));
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

/** The ids, total and statements of one listing. */
async function listed(page: { limit: number; offset: number }, archived?: boolean) {
  const query = vi.spyOn(pool, 'query');
  try {
    const { sessions, total } = await reads.listSessions('u1', archived === undefined ? {} : { archived }, page, SINCE);
    return { ids: sessions.map((session) => session.id), total, statements: query.mock.calls.length };
  } finally {
    query.mockRestore();
  }
}

it('lists the most recently active first, ties by the newest created and then id, in each scope', async () => {
  expect((await listed({ limit: 5, offset: 0 }, false)).ids).toEqual(ACTIVE.slice(0, 5));
  expect((await listed({ limit: 5, offset: 0 })).ids).toEqual(['shelved', ...ACTIVE.slice(0, 4)]);
});

it('reads a full page and counts the scope apart', async () => {
  expect(await listed({ limit: 100, offset: 0 }, false)).toEqual({ ids: ACTIVE.slice(0, 100), total: 250, statements: 2 });
  expect(await listed({ limit: 100, offset: 100 }, false)).toEqual({ ids: ACTIVE.slice(100, 200), total: 250, statements: 2 });
});

it('tells the total of the last page, and of a scope smaller than a page, without counting', async () => {
  expect(await listed({ limit: 100, offset: 200 }, false)).toEqual({ ids: ACTIVE.slice(200), total: 250, statements: 1 });
  expect(await listed({ limit: 100, offset: 0 }, true)).toEqual({ ids: ['shelved'], total: 1, statements: 1 });
});

it('reads no page larger than a listing answers: its statement would cut it short', async () => {
  await expect(listed({ limit: 101, offset: 0 }, false)).rejects.toThrow();
});

it('counts the scope for a page past the last', async () => {
  expect(await listed({ limit: 100, offset: 300 }, false)).toEqual({ ids: [], total: 250, statements: 2 });
  expect(await listed({ limit: 100, offset: 300 })).toEqual({ ids: [], total: 251, statements: 2 });
});

it("reads a page through the listing's index, never every session of the user, in the generic plan too", async () => {
  // A user with as many sessions as a busy relay's: a plan that scans them all is one the planner would pick.
  await prisma.user.create({ data: { id: 'busy', name: 'busy', createdAt: NOW } });
  await pool.query(
    `INSERT INTO sessions (id, user_id, title, provider, model, origin, state, cwd, created_at, last_activity_at)
     SELECT 'busy-' || n, 'busy', 'Busy ' || n, 'script', '', 'hosted', 'idle', '', $1::timestamp - n * interval '1 minute', $1::timestamp - n * interval '1 minute'
       FROM generate_series(1, 10000) AS n`,
    [NOW],
  );
  await pool.query('ANALYZE sessions');
  await reads.listSessions('busy', { archived: false }, { limit: 100, offset: 0 }, SINCE);
  const client = await pool.connect();
  try {
    await client.query('SET plan_cache_mode = force_generic_plan');
    const values = `'busy', '${SINCE.toISOString()}', false, NULL, 101, 100`;
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) EXECUTE session_reads_list(${values})`);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain('Index Scan using sessions_user_id_last_activity_at_created_at_id_idx on sessions');
    expect(plan).not.toMatch(/Seq Scan on sessions(?! h)/);
  } finally {
    await client.query('RESET plan_cache_mode');
    client.release();
  }
});
