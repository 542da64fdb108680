// An external session's inbox against a real PostgreSQL (decisions.md, External sessions): a wake-up or a
// schedule firing for a conversation whose agent runs outside the relay is written into it without a turn, and
// stays pending for that agent, with the line that says what it is, until the agent reads it; each is announced as
// relay.session.v1.message_written.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { handleScheduledPrompt, SCHEDULED_PROMPTS } from '../src/adapters/bus/scheduled-prompt-consumer.ts';
import { handleWakeup, WAKEUPS } from '../src/adapters/bus/wakeup-consumer.ts';
import { PrismaDeliveries } from '../src/adapters/store/prisma-deliveries.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';
import { PrismaExternalInbox } from '../src/adapters/store/prisma-external-inbox.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-02T10:00:00.000Z');
const logger = createLogger({ name: 'external-inbox-test', level: 'silent' });
let ids = 0;

let database: TestDatabase;
let prisma: PrismaClient;
let inbox: PrismaExternalInbox;
let reads: PgSessionReads;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  const pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  inbox = new PrismaExternalInbox(prisma);
  reads = new PgSessionReads(pool);
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  await prisma.session.create({
    data: {
      id: 'editor',
      userId: 'u1',
      title: 'My editor',
      provider: 'external',
      model: '',
      origin: 'external',
      state: 'idle',
      cwd: '',
      createdAt: NOW,
      lastActivityAt: NOW,
    },
  });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const deps = () => ({ deliveries: new PrismaDeliveries(prisma, API_MESSAGES), ids: { newId: () => `id${++ids}` }, clock: new ManualClock(NOW), logger });
const wakeup = (id: string, rows: string) => ({
  id,
  subject: WAKEUPS.contract.subject,
  deliveryCount: 1,
  // As the consumer hands it over: decoded by the contract's codec.
  data: WAKEUPS.contract.codec.fromJSON({
    wakeupId: id,
    watcherSessionId: 'editor',
    text: `[relay event · automated message from OAR, not from the user; it approves nothing]\n${rows}`,
  }),
});

it('writes a wake-up into the external conversation as an event message, without a turn, pending until read', async () => {
  await handleWakeup(deps(), wakeup('w1', '[relay event] session "Worker" (3f9c2a1e): turn_end (done) "pong"'));
  await handleWakeup(deps(), wakeup('w1', '[relay event] session "Worker" (3f9c2a1e): turn_end (done) "pong"'));
  const messages = await prisma.message.findMany({ where: { sessionId: 'editor' } });
  expect(messages.map((m) => m.role)).toEqual(['event']);
  expect(await prisma.turn.count({ where: { sessionId: 'editor' } })).toBe(0);
  expect(await prisma.session.findUniqueOrThrow({ where: { id: 'editor' } })).toMatchObject({ messageCount: 1, state: 'idle' });
  expect(await reads.pending('editor')).toEqual({ count: 1, previews: ['[relay event] session "Worker" (3f9c2a1e): turn_end (done) "pong"'] });
});

it('writes a schedule firing too; reading the newest message marks everything up to it read', async () => {
  await handleScheduledPrompt(deps(), {
    id: 'f1',
    subject: SCHEDULED_PROMPTS.contract.subject,
    deliveryCount: 1,
    data: SCHEDULED_PROMPTS.contract.codec.fromJSON({
      firingId: 'sch_1:2026-12-02T10:00:00.000Z',
      targetSessionId: 'editor',
      settingSessionId: 'editor',
      text: '[relay schedule sch_1 "Check" · automated message from OAR, not from the user; it approves nothing]\nCheck the build.',
      provenance: { originRelay: 'desk', originSessionId: 'editor', originSessionTitle: 'My editor', model: '', hops: 0 },
    }),
  });
  const pending = await reads.pending('editor');
  expect(pending?.count).toBe(2);
  // Announced, so the scheduler counts the firing as taken (no turn will take it) and the next repeat may fire.
  const [announced] = await prisma.$queryRaw<{ payload: { messageId: string; role: string } }[]>`
    SELECT payload FROM outbox WHERE subject = 'relay.session.v1.message_written' AND payload->>'role' = 'schedule'`;
  expect(announced?.payload).toMatchObject({ messageId: 'sch_1:2026-12-02T10:00:00.000Z', sessionId: 'editor', userId: 'u1' });
  expect(pending?.previews[1]).toMatch(/^\[relay schedule sch_1 "Check"/);
  expect(await prisma.turn.count({ where: { sessionId: 'editor' } })).toBe(0);

  await inbox.markRead('editor', ['sch_1:2026-12-02T10:00:00.000Z']);
  expect(await reads.pending('editor')).toEqual({ count: 0, previews: [] });
  // A message that comes later is pending again; reading an older one does not take the marker back.
  await handleWakeup(deps(), wakeup('w2', '[relay event] question_answered: question ask_1 answered (chose "Wait"; via desk)'));
  await inbox.markRead('editor', ['sch_1:2026-12-02T10:00:00.000Z']);
  expect(await reads.pending('editor')).toMatchObject({ count: 1, previews: [expect.stringContaining('question_answered')] });
});

it('has no inbox for a hosted session or an unknown one', async () => {
  await prisma.session.create({
    data: {
      id: 'hosted',
      userId: 'u1',
      title: 'Hosted',
      provider: 'script',
      model: 'script-1',
      origin: 'hosted',
      state: 'idle',
      cwd: '',
      createdAt: NOW,
      lastActivityAt: NOW,
    },
  });
  await prisma.message.create({ data: { id: 'hosted-ev', sessionId: 'hosted', role: 'event', text: '[relay event] x', createdAt: NOW } });
  expect(await reads.pending('hosted')).toBeUndefined();
  expect(await reads.pending('nope')).toBeUndefined();
});
