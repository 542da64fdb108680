// The wake-up consumer against a real PostgreSQL (decisions.md, While the watcher is mid-turn): a watcher
// mid-turn on a provider that steers takes the event rows into its running turn and nothing is queued; one on
// a provider that does not steer gets them queued behind the turn, rows of one turn merged into one message.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { handleWakeup, WAKEUPS } from '../src/adapters/bus/wakeup-consumer.ts';
import { PrismaDeliveries } from '../src/adapters/store/prisma-deliveries.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');
const logger = createLogger({ name: 'wakeup-test', level: 'silent' });
let ids = 0;

let database: TestDatabase;
let prisma: PrismaClient;

/** A session on `provider` with one turn in `status`. */
async function watcher(id: string, provider: string, status: string): Promise<void> {
  await prisma.session.create({
    data: { id, userId: 'u1', title: id, provider, model: 'm', origin: 'hosted', state: 'running_turn', cwd: '/tmp', createdAt: NOW, lastActivityAt: NOW },
  });
  await prisma.message.create({ data: { id: `${id}-m0`, sessionId: id, role: 'user', text: 'work', createdAt: NOW } });
  await prisma.turn.create({ data: { id: `${id}-t0`, sessionId: id, messageId: `${id}-m0`, status, mode: 'agent', queuedAt: NOW, startedAt: NOW } });
}

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  await watcher('on-claude', 'claude', 'running');
  await watcher('on-script', 'script', 'running');
  await watcher('idle-claude', 'claude', 'done');
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const steered: { providerId: string; sessionId: string; text: string }[] = [];
/** Steers only Claude sessions, as the registry does for providers that steer and run the turn here. */
const steer = async (providerId: string, sessionId: string, text: string) => {
  if (providerId !== 'claude') return false;
  steered.push({ providerId, sessionId, text });
  return true;
};
const deps = () => ({ deliveries: new PrismaDeliveries(prisma, API_MESSAGES), ids: { newId: () => `id${++ids}` }, clock: new ManualClock(NOW), logger, steer });
const wakeup = (id: string, watcherSessionId: string, rows: string) => ({
  id,
  subject: WAKEUPS.contract.subject,
  deliveryCount: 1,
  // As the consumer hands it over: decoded by the contract's codec.
  data: WAKEUPS.contract.codec.fromJSON({ wakeupId: id, watcherSessionId, text: `[relay event · 1 event]\n${rows}` }),
});

it('steers an event row into the running turn of a Claude watcher, without a steer note, and queues nothing', async () => {
  await handleWakeup(deps(), wakeup('w1', 'on-claude', 'session "B" (3f9c…): turn_end'));
  expect(steered).toEqual([{ providerId: 'claude', sessionId: 'on-claude', text: '[relay event · 1 event]\nsession "B" (3f9c…): turn_end' }]);
  expect(await prisma.turn.count({ where: { sessionId: 'on-claude' } })).toBe(1);
  expect(await prisma.message.count({ where: { sessionId: 'on-claude' } })).toBe(1);
  // A redelivery of the same wake-up does nothing.
  await handleWakeup(deps(), wakeup('w1', 'on-claude', 'session "B" (3f9c…): turn_end'));
  expect(steered).toHaveLength(1);
});

it('queues event rows behind the running turn of a watcher whose provider does not steer, merged into one message', async () => {
  await handleWakeup(deps(), wakeup('w2', 'on-script', 'row one'));
  await handleWakeup(deps(), wakeup('w3', 'on-script', 'row two'));
  const queued = await prisma.turn.findMany({ where: { sessionId: 'on-script', status: 'queued' }, include: { message: true } });
  expect(queued).toHaveLength(1);
  expect(queued[0]!.message).toMatchObject({ role: 'event', text: '[relay event · 1 event]\nrow one\nrow two' });
  expect(steered.map((s) => s.sessionId)).not.toContain('on-script');
});

it('queues a new turn for a Claude watcher that is not mid-turn', async () => {
  await handleWakeup(deps(), wakeup('w4', 'idle-claude', 'row'));
  expect(await prisma.turn.count({ where: { sessionId: 'idle-claude', status: 'queued' } })).toBe(1);
  expect(steered.map((s) => s.sessionId)).not.toContain('idle-claude');
});
