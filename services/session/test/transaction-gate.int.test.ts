// A burst of external calls held at once against a small pool in a real PostgreSQL, through the session service's
// transaction gate: each hold is written (its row and its announcement) or refused before it started with
// REMOTE_RELAY_CALL_LIMIT, never an internal error, and the token checks made meanwhile all answer. The pool's
// transactions go before its reads, and the reads never hold the connections kept for them (docs/adr/0049): reads that
// fill the pool never hold a write up, nor writes a read.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { isAppError } from '@relay/errors';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaExternalCalls } from '../src/adapters/store/prisma-external-calls.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { DEADLINE_MARGIN_MS } from '@relay/db/call-deadline';
import { LanedPool, type Lanes } from '@relay/db/service-pool';
import { gatedTransactions, TransactionGate, transactionBounds, type TransactionGateOptions } from '@relay/db/transaction-gate';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const LATER = new Date('2026-12-07T10:01:00.000Z');
/** Four connections, the reads two at most: the gate lets two transactions have one each at a time. */
const LANES: Lanes = { connections: 4, statements: 2 };
/** The advisory lock the tests hold to keep reads or transactions running as long as they need. */
const LOCK = 46;
const SESSIONS = 50;
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 45, taskQuietMinutes: 20 };

/** The deadline of the call a hold serves, as the service's gRPC handlers have theirs (@relay/rpc's callDeadline). */
const deadlines = new AsyncLocalStorage<number>();

let database: TestDatabase;
let pool: LanedPool;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  pool = new LanedPool(database.url, LANES, () => deadlines.getStore());
  prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  await prisma.relaySettings.create({ data: { id: 1, ...SETTINGS } });
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  await prisma.session.createMany({
    data: Array.from({ length: SESSIONS }, (_, i) => ({
      id: `s${i}`,
      userId: 'u1',
      title: `agent ${i}`,
      provider: 'external',
      model: '',
      origin: 'external' as const,
      state: 'idle' as const,
      cwd: '',
      createdAt: NOW,
      lastActivityAt: NOW,
    })),
  });
});

afterEach(async () => {
  await prisma.externalCall.deleteMany();
  await prisma.outboxMessage.deleteMany();
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

/** `count` holds started at once, spread over the sessions; what each answered. */
async function burst(options: TransactionGateOptions, count: number) {
  const calls = new PrismaExternalCalls(gatedTransactions(prisma, new TransactionGate(options)));
  const ids = Array.from({ length: count }, (_, i) => ({ sessionId: `s${i % SESSIONS}`, callId: `c${i}` }));
  const outcomes = await Promise.allSettled(ids.map(({ sessionId, callId }) => calls.hold(sessionId, callId, LATER, NOW, 'u1')));
  const held = ids.filter((_, i) => outcomes[i]!.status === 'fulfilled').map(({ callId }) => callId);
  const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  return { held, refusals };
}

const rows = async () => (await prisma.externalCall.findMany({ select: { callId: true } })).map(({ callId }) => callId).sort();
const announced = () => prisma.outboxMessage.count({ where: { subject: { endsWith: 'external_call_held' } } });

it('holds every call of a burst larger than the pool, while the token checks made meanwhile answer', async () => {
  const tokens = new PgTokenReads(pool);
  // Without the gate, many of 1,000 wait for a connection past Prisma's 2 s and fail (554 with this pool on a quiet
  // minute, 933 with 3 connections). No wait here is bounded by time: the queue's own bound is the next test's.
  const holding = burst({ ...transactionBounds(pool), maxQueueMs: 600_000 }, 1000);
  const checks = await Promise.all(Array.from({ length: 100 }, () => tokens.lookUpToken('no such hash')));
  const { held, refusals } = await holding;
  expect(refusals).toEqual([]);
  expect(checks.every((check) => check.holder === undefined && check.settings.maxWaitSeconds === 900)).toBe(true);
  expect(await rows()).toEqual(held.sort());
  expect(held).toHaveLength(1000);
  expect(await announced()).toBe(1000);
});

it('refuses what overflows the queue with REMOTE_RELAY_CALL_LIMIT, before anything of it is written', async () => {
  // One runs, 20 wait: the other 79 of the burst are refused at once.
  const { held, refusals } = await burst({ concurrency: 1, maxQueued: 20, maxQueueMs: 60_000 }, 100);
  expect(held).toHaveLength(21);
  expect(refusals).toHaveLength(79);
  for (const refusal of refusals) {
    expect(isAppError(refusal) && refusal.code).toBe('REMOTE_RELAY_CALL_LIMIT');
    expect((refusal as Error).message).toMatch(/Nothing was changed; make the same call again/);
  }
  expect(await rows()).toEqual(held.sort());
  expect(await announced()).toBe(21);
});

/**
 * A connection of the test's own holding LOCK until `release` is called, or the test ends (so a failing test does
 * not leave the pool's connections waiting); `waiting` tells how many wait for it.
 */
async function holdLock() {
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
  let released: Promise<void> | undefined;
  const release = () => (released ??= holder.end());
  onTestFinished(release);
  return {
    waiting: async () => {
      const { rows } = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
      return rows[0]!.n;
    },
    release,
  };
}

it('holds every call of a burst while reads hold every connection they may, and only then do the reads end', async () => {
  // Reads that last until the lock is released: more than they may hold connections, so the rest queue. In a plain
  // pool they held every connection and queued before the writes, which all waited to their bound and were refused.
  const lock = await holdLock();
  const reads = Array.from({ length: 20 }, () => pool.query('SELECT pg_advisory_xact_lock_shared($1)', [LOCK]));
  await vi.waitFor(async () => expect(await lock.waiting()).toBe(LANES.statements));
  const { held, refusals } = await burst(transactionBounds(pool), 100);
  await lock.release();
  await Promise.all(reads);
  expect(refusals).toEqual([]);
  expect(held).toHaveLength(100);
  expect(await rows()).toEqual(held.sort());
  expect(await announced()).toBe(100);
});

it('answers token checks while a burst of writes holds every connection it may', async () => {
  // Transactions that last until the lock is released, more than the gate lets run: a token check that waited for
  // their connections, or behind those queued, would never answer before the release.
  const lock = await holdLock();
  const gated = gatedTransactions(prisma, new TransactionGate({ ...transactionBounds(pool), maxQueueMs: 600_000 }));
  const transactions = Array.from({ length: 10 }, async () => gated.$transaction((tx) => tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK})`));
  await vi.waitFor(async () => expect(await lock.waiting()).toBe(transactionBounds(pool).concurrency));
  const checks = await Promise.all(Array.from({ length: 100 }, () => new PgTokenReads(pool).lookUpToken('no such hash')));
  await lock.release();
  await Promise.all(transactions);
  expect(checks.every((check) => check.holder === undefined && check.settings.maxWaitSeconds === 900)).toBe(true);
});

it("refuses a hold whose call's deadline nears while it waits at the gate, before anything of it is written; one no call waits on still waits", async () => {
  const gate = new TransactionGate({ ...transactionBounds(pool), maxQueueMs: 600_000, deadline: () => deadlines.getStore() });
  const gated = gatedTransactions(prisma, gate);
  const lock = await holdLock();
  const holding = Array.from({ length: transactionBounds(pool).concurrency }, () =>
    gated.$transaction((tx) => tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK})`),
  );
  await vi.waitFor(async () => expect(await lock.waiting()).toBe(transactionBounds(pool).concurrency));
  const calls = new PrismaExternalCalls(gated);
  const late = deadlines.run(Date.now() + DEADLINE_MARGIN_MS + 300, () => calls.hold('s0', 'late', LATER, NOW, 'u1')).catch((error: unknown) => error);
  const unbounded = calls.hold('s1', 'unbounded', LATER, NOW, 'u1');
  const refusal = await late;
  expect(isAppError(refusal) && refusal.code).toBe('REMOTE_RELAY_CALL_LIMIT');
  // Refused while the transactions before it still held every place.
  expect(await lock.waiting()).toBe(transactionBounds(pool).concurrency);
  await lock.release();
  await Promise.all([...holding, unbounded]);
  expect(await rows()).toEqual(['unbounded']);
  expect(await announced()).toBe(1);
});
