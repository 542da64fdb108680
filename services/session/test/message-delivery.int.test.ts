// A message's delivery (issue 40) as read_session reads it from a real PostgreSQL: off the turn it queued (queued →
// queued; started → delivered; error, or stopped before it started → failed), or in an external session off its
// agent's read marker; a reply and an error row have none.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { MessageDelivery } from '@relay/proto/relay/session/v1/session';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';
import { PrismaExternalInbox } from '../src/adapters/store/prisma-external-inbox.ts';
import { toChatMessage } from '../src/adapters/grpc/wire/session-wire.ts';
import { toTurnResult } from '../src/adapters/grpc/wire/turn-wire.ts';
import { turnDelivery } from '../src/domain/sessions/delivery.ts';
import type { Turn, TurnStatus } from '../src/domain/turns/turn.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-02T10:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

let database: TestDatabase;
let prisma: PrismaClient;
let reads: PgSessionReads;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  reads = new PgSessionReads(pool);
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  for (const [id, origin] of [
    ['hosted', 'hosted'],
    ['editor', 'external'],
  ] as const) {
    await prisma.session.create({
      data: {
        id,
        userId: 'u1',
        title: id,
        provider: origin === 'external' ? 'external' : 'script',
        model: '',
        origin,
        state: 'idle',
        cwd: '',
        createdAt: NOW,
        lastActivityAt: NOW,
      },
    });
  }
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

let seconds = 0;
async function message(sessionId: string, id: string, role: string, turn?: { status: TurnStatus; started: boolean }): Promise<void> {
  const createdAt = at(++seconds);
  await prisma.message.create({ data: { id, sessionId, role, text: id, createdAt } });
  if (turn === undefined) return;
  await prisma.turn.create({
    data: { id: `t-${id}`, sessionId, messageId: id, status: turn.status, mode: 'agent', queuedAt: createdAt, startedAt: turn.started ? createdAt : null },
  });
}

async function deliveries(sessionId: string): Promise<Record<string, string | undefined>> {
  const read = await reads.readSession(sessionId, 100, NOW);
  return Object.fromEntries(read!.messages.map((m) => [m.id, m.delivery]));
}

describe('a hosted session', () => {
  it('reads each message sent to it off its turn, and gives replies and error rows none', async () => {
    await message('hosted', 'done', 'user', { status: 'done', started: true });
    await message('hosted', 'reply', 'assistant');
    await message('hosted', 'failed', 'agent', { status: 'error', started: true });
    await message('hosted', 'why', 'error');
    await message('hosted', 'stopped-early', 'schedule', { status: 'stopped', started: false });
    await message('hosted', 'stopped-late', 'user', { status: 'stopped', started: true });
    await message('hosted', 'asking', 'event', { status: 'waiting_for_answer', started: true });
    await message('hosted', 'running', 'agent', { status: 'running', started: true });
    await message('hosted', 'waiting', 'user', { status: 'queued', started: false });

    expect(await deliveries('hosted')).toEqual({
      done: 'delivered',
      reply: undefined,
      failed: 'failed',
      why: undefined,
      'stopped-early': 'failed',
      'stopped-late': 'delivered',
      asking: 'delivered',
      running: 'delivered',
      waiting: 'queued',
    });
  });
});

describe('an external session', () => {
  it('has what its agent read delivered and the rest queued', async () => {
    await message('editor', 'ev1', 'event');
    await message('editor', 'sch1', 'schedule');
    await message('editor', 'ev2', 'event');
    expect(await deliveries('editor')).toEqual({ ev1: 'queued', sch1: 'queued', ev2: 'queued' });
    await new PrismaExternalInbox(prisma).markRead('editor', ['sch1']);
    expect(await deliveries('editor')).toEqual({ ev1: 'delivered', sch1: 'delivered', ev2: 'queued' });
  });
});

describe('on the wire', () => {
  it('carries the delivery on a message and on a turn result', async () => {
    const read = await reads.readSession('hosted', 100, NOW);
    const wire = read!.messages.map(toChatMessage);
    expect(wire.find((m) => m.id === 'waiting')?.delivery).toBe(MessageDelivery.MESSAGE_DELIVERY_QUEUED);
    expect(wire.find((m) => m.id === 'reply')?.delivery).toBe(MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED);
    const turn = { status: 'stopped', startedAt: null, pendingQuestions: [] } as unknown as Turn;
    expect(toTurnResult(turn).delivery).toBe(MessageDelivery.MESSAGE_DELIVERY_FAILED);
    expect(toTurnResult({ ...turn, status: 'running', startedAt: NOW }).delivery).toBe(MessageDelivery.MESSAGE_DELIVERY_DELIVERED);
  });

  it.each([
    ['queued', false, 'queued'],
    ['running', true, 'delivered'],
    ['waiting_for_answer', true, 'delivered'],
    ['done', true, 'delivered'],
    ['error', false, 'failed'],
    ['error', true, 'failed'],
    ['stopped', false, 'failed'],
    ['stopped', true, 'delivered'],
  ] as const)('a %s turn (started: %s) is %s', (status, started, delivery) => {
    expect(turnDelivery({ status, started })).toBe(delivery);
  });
});
