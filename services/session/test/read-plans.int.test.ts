// The plans PostgreSQL keeps for the reads of every agent's call (PgSessionReads), on a relay whose data is lopsided
// as a busy one's is: 10,000 sessions of one user, 10,000 messages in one conversation. Each plan, custom and generic,
// reads what the answer needs through an index and is never compiled with JIT: with the pending note as columns of
// every listed row, the listing's estimate passed jit_above_cost and each call spent 30–600 ms compiling it (issue 46).
// And what the listing's lookups by key read: each row's group (by its name, or its head's title), and its starter.
// The same plans on a relay where one external conversation holds every message, as the read-costs bench seeds it:
// there the statistics tell the planner that any session's messages may be all of them, and the note's count of a
// session's unread messages was planned as a scan of every message unless the index holds their role (issue 46).
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const SINCE = new Date(NOW.getTime() - 3_600_000);
/** A page of list_sessions, and one row more (PgSessionReads reads it to tell whether there are more). */
const PAGE = { limit: 100, offset: 0 };

let database: TestDatabase;
let pool: pg.Pool;
let reads: PgSessionReads;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  // One connection: the one the statements are prepared on.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query(`INSERT INTO users (id, name, created_at) VALUES ('u1', 'u1', $1)`, [NOW]);
  await pool.query(
    `INSERT INTO groups (id, user_id, name, made_by, created_at, last_activity_at)
     VALUES ('unnamed', 'u1', NULL, 'user', $1, $1), ('named', 'u1', 'Crew', 'user', $1, $1)`,
    [NOW],
  );
  // The agent, the long conversation, an unnamed group's head and member, a named group's member, a session the long
  // conversation's agent started, and 10,000 more sessions, all of one user.
  await pool.query(
    `INSERT INTO sessions (id, user_id, title, provider, model, origin, state, cwd, created_at, last_activity_at, group_id, group_role, started_by_session_id)
     VALUES ('agent', 'u1', 'My editor', 'external', '', 'external', 'idle', '', $1, $1, NULL, NULL, NULL),
            ('talk', 'u1', 'Long talk', 'script', '', 'hosted', 'idle', '', $1, $1, NULL, NULL, NULL),
            ('head', 'u1', 'Lead', 'script', '', 'hosted', 'idle', '', $1, $1, 'unnamed', 'head', NULL),
            ('member', 'u1', 'Hand', 'script', '', 'hosted', 'idle', '', $1, $1, 'unnamed', 'member', NULL),
            ('crew', 'u1', 'Deckhand', 'script', '', 'hosted', 'idle', '', $1, $1, 'named', 'member', NULL),
            ('child', 'u1', 'Helper', 'script', '', 'hosted', 'idle', '', $1, $1, NULL, NULL, 'talk')`,
    [NOW],
  );
  await seedLongConversation(pool, 'talk');
  await pool.query(`INSERT INTO messages (id, session_id, role, text, created_at) VALUES ('wake', 'agent', 'event', '[relay event] turn_end', $1)`, [NOW]);
  await pool.query('ANALYZE');
  // Each statement prepared once, on the pool's one connection.
  reads = new PgSessionReads(pool);
  await reads.listSessions('u1', { archived: false }, PAGE, SINCE, 'agent');
  await reads.readSession('talk', 10, SINCE, 'agent');
  await reads.pending('agent');
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** 10,000 sessions of u1 more, and the 10,000 messages of its conversation `talk`, none of a pending role. */
async function seedLongConversation(db: pg.Pool, talk: string): Promise<void> {
  await db.query(
    `INSERT INTO sessions (id, user_id, title, provider, model, origin, state, cwd, created_at, last_activity_at)
     SELECT 's-' || n, 'u1', 'Session ' || n, 'script', '', 'hosted', 'idle', '', $1::timestamp - n * interval '1 minute', $1::timestamp - n * interval '1 minute'
       FROM generate_series(1, 10000) AS n`,
    [NOW],
  );
  await db.query(
    `INSERT INTO messages (id, session_id, role, text, created_at)
     SELECT 'm-' || n, $2, CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END, repeat('A line of the conversation. ', 8), $1::timestamp - (10000 - n) * interval '1 second'
       FROM generate_series(1, 10000) AS n`,
    [NOW, talk],
  );
}

/** Each read's EXECUTE of its prepared statement: the agent `agent` lists u1's sessions and reads `talk`. */
const statements = (agent: string, talk: string) => ({
  list_sessions: `session_reads_list('u1', '${SINCE.toISOString()}', false, '${agent}', ${PAGE.limit + 1}, 0)`,
  read_session: `session_reads_read('${talk}', '${SINCE.toISOString()}', 10, '${agent}')`,
  'the pending note': `session_reads_pending('{${agent}}')`,
  "the read conversation's own pending note": `session_reads_pending('{${talk}}')`,
});

const PLAN_CACHE_MODES = ['force_custom_plan', 'force_generic_plan'] as const;
type PlanCacheMode = (typeof PLAN_CACHE_MODES)[number];

/** The plan PostgreSQL runs `execute` with in plan_cache_mode `mode` on `on`'s connection, with what it did (EXPLAIN ANALYZE; with its costs, which is where it tells JIT). */
async function planOf(execute: string, mode: PlanCacheMode, on = pool): Promise<string> {
  const client = await on.connect();
  try {
    await client.query(`SET plan_cache_mode = ${mode}`);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) EXECUTE ${execute}`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('RESET plan_cache_mode');
    client.release();
  }
}

type PlanCounts = { generic: number; custom: number };

/** How many times the pool's connection planned the prepared statement `name` generically, and for its parameters. */
async function plansOf(name: string): Promise<PlanCounts> {
  const { rows } = await pool.query<{ generic: string; custom: string }>(
    'SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE name = $1',
    [name],
  );
  return { generic: Number(rows[0]!.generic), custom: Number(rows[0]!.custom) };
}

function difference(after: PlanCounts, before: PlanCounts): PlanCounts {
  return { generic: after.generic - before.generic, custom: after.custom - before.custom };
}

/** What every plan of a read must be: through indexes, never compiled with JIT. */
function expectIndexedWithoutJit(plan: string): void {
  expect(plan).not.toContain('JIT');
  expect(plan).not.toMatch(/Seq Scan on (messages|sessions)/);
}

describe.each(Object.entries(statements('agent', 'talk')))('%s', (_read, execute) => {
  it.each(PLAN_CACHE_MODES)('reads through indexes, without JIT, in plan_cache_mode %s', async (mode) => {
    expectIndexedWithoutJit(await planOf(execute, mode));
  });
});

describe('where one external conversation holds every message', () => {
  // Ids as the relay makes them: how wide they are moves the costs the planner weighs.
  const AGENT = '587c45e4-7eae-4be2-883b-d948ebb45717';
  const TALK = 'b9dacf6f-d7bc-4bb7-ad0e-a4fbc928f58f';
  let lopsided: TestDatabase;
  let onePool: pg.Pool;

  beforeAll(async () => {
    lopsided = await createTestDatabase({ migrationsDir });
    onePool = new pg.Pool({ connectionString: lopsided.url, max: 1 });
    await onePool.query(`INSERT INTO users (id, name, created_at) VALUES ('u1', 'u1', $1)`, [NOW]);
    await onePool.query(
      `INSERT INTO sessions (id, user_id, title, provider, model, origin, state, cwd, created_at, last_activity_at)
       VALUES ($2, 'u1', 'My editor', 'external', '', 'external', 'idle', '', $1, $1),
              ($3, 'u1', 'Long talk', 'external', '', 'external', 'idle', '', $1, $1)`,
      [NOW, AGENT, TALK],
    );
    await seedLongConversation(onePool, TALK);
    await onePool.query('ANALYZE');
    const onLopsided = new PgSessionReads(onePool);
    await onLopsided.listSessions('u1', { archived: false }, PAGE, SINCE, AGENT);
    await onLopsided.readSession(TALK, 10, SINCE, AGENT);
    await onLopsided.pending(AGENT);
  });

  afterAll(async () => {
    await onePool?.end();
    await lopsided?.drop();
  });

  describe.each(Object.entries(statements(AGENT, TALK)))('%s', (_read, execute) => {
    it.each(PLAN_CACHE_MODES)('reads through indexes, without JIT, in plan_cache_mode %s', async (mode) => {
      expectIndexedWithoutJit(await planOf(execute, mode, onePool));
    });
  });
});

// PostgreSQL plans a prepared statement's first five runs for their parameters; after, it plans each run afresh unless
// its generic plan costs no more than those did.
const READS = {
  session_reads_list: () => reads.listSessions('u1', { archived: false }, PAGE, SINCE, 'agent'),
  session_reads_read: () => reads.readSession('talk', 10, SINCE, 'agent'),
};
it.each(Object.entries(READS))('plans %s once for every call, however many sessions and messages there are', async (statement, read) => {
  for (let call = 0; call < 5; call++) await read();
  const before = await plansOf(statement);
  for (let call = 0; call < 3; call++) await read();
  expect(difference(await plansOf(statement), before)).toEqual({ generic: 3, custom: 0 });
});

it('reads no more messages than a reading returns: its statement would cut them short', async () => {
  await expect(reads.readSession('talk', 101, SINCE)).rejects.toThrow();
});

it("shows each listed row's group, by its name or its head's title, and the title of the session that started it", async () => {
  const { sessions } = await reads.listSessions('u1', { archived: false }, PAGE, SINCE);
  const shown = Object.fromEntries(sessions.map((session) => [session.id, { group: session.group, startedByTitle: session.startedByTitle }]));
  expect(shown).toMatchObject({
    head: { group: { id: 'unnamed', name: 'Lead', role: 'head' }, startedByTitle: '' },
    member: { group: { id: 'unnamed', name: 'Lead', role: 'member' } },
    crew: { group: { id: 'named', name: 'Crew', role: 'member' } },
    child: { group: null, startedByTitle: 'Long talk' },
    talk: { group: null, startedByTitle: '' },
  });
});
