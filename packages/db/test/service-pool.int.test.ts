// The laned pool against a real PostgreSQL: a connection that comes free goes to a waiting transaction before the
// statements that waited longer, statements never hold the connections kept for transactions, an idle connection's
// error reaches the pool's listeners (Prisma's adapter listens there; an 'error' nobody hears ends the process), and
// ending the pool ends its connections; every service connection runs without JIT; and a call's statement still waiting
// when its deadline nears leaves the line unrun.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isAppError } from '@relay/errors';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { DEADLINE_MARGIN_MS } from '../src/call-deadline.ts';
import { LanedPool, servicePool } from '../src/service-pool.ts';
import { scratchDatabase, type ScratchDatabase } from './scratch-database.ts';

/** The advisory lock a test holds to keep statements running as long as it needs. */
const LOCK = 49;

let database: ScratchDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await scratchDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await database?.drop();
});

/** The deadline of the call a statement serves, as a service's gRPC handlers have theirs (@relay/rpc's callDeadline). */
const calls = new AsyncLocalStorage<number>();

/** A pool ended when the test ends. */
function lanedPool(connections: number, statements: number): LanedPool {
  const pool = new LanedPool(database.url, { connections, statements }, () => calls.getStore());
  onTestFinished(() => pool.end());
  return pool;
}

/** Holds LOCK on a connection of the test's own until the returned release (or the test's end). */
async function holdLock(): Promise<() => Promise<void>> {
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
  let released: Promise<void> | undefined;
  const release = () => (released ??= holder.end());
  onTestFinished(release);
  return release;
}

const waitingForLock = async () =>
  (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0]!.n;

it('gives a connection that comes free to a waiting transaction before the statements that waited longer', async () => {
  const pool = lanedPool(1, 1);
  const release = await holdLock();
  const order: string[] = [];
  const first = pool.query('SELECT pg_advisory_xact_lock_shared($1)', [LOCK]).then(() => order.push('statement'));
  await vi.waitFor(async () => expect(await waitingForLock()).toBe(1));
  const later = Array.from({ length: 3 }, () => pool.query('SELECT 1').then(() => order.push('statement')));
  const transaction = pool.connect().then(async (client) => {
    order.push('transaction');
    await client.query('SELECT 1');
    client.release();
  });
  await release();
  await Promise.all([first, ...later, transaction]);
  expect(order).toEqual(['statement', 'transaction', 'statement', 'statement', 'statement']);
});

it('keeps connections for transactions that statements never take', async () => {
  const pool = lanedPool(2, 1);
  const release = await holdLock();
  const statements = Array.from({ length: 5 }, () => pool.query('SELECT pg_advisory_xact_lock_shared($1)', [LOCK]));
  await vi.waitFor(async () => expect(await waitingForLock()).toBe(1));
  // One statement waits for the lock and the others for it: the transaction has the connection they may not take.
  const client = await pool.connect();
  expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  client.release();
  expect(await waitingForLock()).toBe(1);
  await release();
  await Promise.all(statements);
});

it('tells its listeners of an idle connection the server ended', async () => {
  const pool = lanedPool(2, 2);
  const heard: Error[] = [];
  pool.on('error', (error) => heard.push(error));
  const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  await vi.waitFor(() => expect(heard).toHaveLength(1));
});

it('ends its connections when it ends', async () => {
  const pool = new LanedPool(database.url, { connections: 2, statements: 2 });
  await pool.query('SELECT 1');
  await pool.end();
  await expect(pool.query('SELECT 1')).rejects.toThrow(/after calling end/);
});

it("runs every service connection without JIT, whatever the database's own setting", async () => {
  await admin.query(`ALTER DATABASE "${new URL(database.url).pathname.slice(1)}" SET jit = on`);
  const plain = servicePool(database.url);
  onTestFinished(() => plain.end());
  const jitOf = async (pool: pg.Pool) => (await pool.query<{ jit: string }>('SHOW jit')).rows[0]!.jit;
  const fresh = new pg.Client({ connectionString: database.url });
  await fresh.connect();
  onTestFinished(() => fresh.end());
  expect((await fresh.query<{ jit: string }>('SHOW jit')).rows[0]!.jit).toBe('on');
  expect(await jitOf(plain)).toBe('off');
  expect(await jitOf(lanedPool(2, 1))).toBe('off');
});

it("gives up a call's statement still waiting a margin before the call's deadline, unrun; one no call waits on still waits", async () => {
  await admin.query('CREATE TABLE ran (name text)');
  onTestFinished(async () => {
    await admin.query('DROP TABLE ran');
  });
  const pool = lanedPool(1, 1);
  const release = await holdLock();
  const holding = pool.query('SELECT pg_advisory_xact_lock_shared($1)', [LOCK]);
  await vi.waitFor(async () => expect(await waitingForLock()).toBe(1));
  // Its deadline is near: it gives up while the one connection is still held.
  const late = calls.run(Date.now() + DEADLINE_MARGIN_MS + 300, () => pool.query("INSERT INTO ran VALUES ('late')")).catch((error: unknown) => error);
  const unbounded = pool.query("INSERT INTO ran VALUES ('unbounded')");
  const refusal = await late;
  expect(isAppError(refusal) && refusal.code).toBe('REMOTE_RELAY_CALL_LIMIT');
  expect(await waitingForLock()).toBe(1);
  // One whose deadline is already that near is refused at once, even with a connection free.
  const idle = lanedPool(1, 1);
  const atOnce = await calls.run(Date.now() + DEADLINE_MARGIN_MS, () => idle.query("INSERT INTO ran VALUES ('at once')")).catch((error: unknown) => error);
  expect(isAppError(atOnce) && atOnce.code).toBe('REMOTE_RELAY_CALL_LIMIT');
  await release();
  await Promise.all([holding, unbounded]);
  // A call whose deadline is far still has its statement run.
  await calls.run(Date.now() + 60_000, () => pool.query("INSERT INTO ran VALUES ('in time')"));
  expect((await admin.query<{ name: string }>('SELECT name FROM ran ORDER BY name')).rows.map(({ name }) => name)).toEqual(['in time', 'unbounded']);
});

it("sends a Date as UTC, as the services' TIMESTAMP(3) columns hold it, in a process outside UTC", async () => {
  const zone = process.env.TZ;
  process.env.TZ = 'America/New_York';
  onTestFinished(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  const instant = new Date('2026-12-08T02:00:00.000Z');
  const plain = servicePool(database.url);
  onTestFinished(() => plain.end());
  for (const pool of [plain, lanedPool(2, 1)]) {
    const { rows } = await pool.query<{ stored: string }>("SELECT to_char($1::timestamp(3), 'YYYY-MM-DD HH24:MI') AS stored", [instant]);
    expect(rows[0]!.stored).toBe('2026-12-08 02:00');
  }
});
