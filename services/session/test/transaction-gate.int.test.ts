// A burst of external calls held at once against a small pool in a real PostgreSQL, through the session service's
// transaction gate: each hold is written (its row and its announcement) or refused before it started with
// REMOTE_RELAY_CALL_LIMIT, never an internal error, and the token checks made meanwhile all answer.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { isAppError } from '@relay/errors';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaExternalCalls } from '../src/adapters/store/prisma-external-calls.ts';
import { PgTokenReads } from '../src/adapters/store/pg-token-reads.ts';
import { gatedTransactions, TransactionGate, transactionBounds, type TransactionGateOptions } from '@relay/db/transaction-gate';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const LATER = new Date('2026-12-07T10:01:00.000Z');
/** Four connections: the gate lets two transactions have one each at a time, the reads keep two. */
const POOL_SIZE = 4;
const SESSIONS = 50;
const SETTINGS = { agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 45, taskQuietMinutes: 20 };

let database: TestDatabase;
let pool: pg.Pool;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  pool = new pg.Pool({ connectionString: database.url, max: POOL_SIZE });
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
