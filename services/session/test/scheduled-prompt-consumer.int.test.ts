// The scheduled-prompt consumer against a real PostgreSQL: a firing's prompt is queued once (a redelivery changes
// nothing) with role "schedule", the firing id as its message id, the setter's provenance (hops included) and the
// target's own relay mode; a target that is archived takes nothing.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { handleScheduledPrompt, SCHEDULED_PROMPTS } from '../src/adapters/bus/scheduled-prompt-consumer.ts';
import { PrismaDeliveries } from '../src/adapters/store/prisma-deliveries.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { API_MESSAGES } from '../src/adapters/grpc/wire/api-messages.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');
const logger = createLogger({ name: 'scheduled-prompt-test', level: 'silent' });
let ids = 0;

let database: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  for (const [id, mode, archived] of [
    ['target', 'plan', false],
    ['gone', 'agent', true],
  ] as const) {
    await prisma.session.create({
      data: {
        id,
        userId: 'u1',
        title: id,
        provider: 'script',
        model: 'script-1',
        origin: 'hosted',
        state: 'idle',
        cwd: '/tmp',
        mode,
        archived,
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

const deps = () => ({ deliveries: new PrismaDeliveries(prisma, API_MESSAGES), ids: { newId: () => `id${++ids}` }, clock: new ManualClock(NOW), logger });
const provenance = { originRelay: 'desk', originSessionId: 'setter', originSessionTitle: 'Setter', model: 'script-1', hops: 1 };
const command = (firingId: string, targetSessionId: string) => ({
  id: firingId,
  subject: SCHEDULED_PROMPTS.contract.subject,
  deliveryCount: 1,
  // As the consumer hands it over: decoded by the contract's codec.
  data: SCHEDULED_PROMPTS.contract.codec.fromJSON({
    firingId,
    scheduleId: 'sch_1',
    userId: 'u1',
    targetSessionId,
    settingSessionId: 'setter',
    title: 'Tick',
    text: '[relay schedule sch_1 "Tick" · every 5 min · …]\nreply tick',
    provenance,
  }),
});

it('queues a firing once, as a schedule message in the target’s own mode, with the setter’s provenance', async () => {
  const firing = 'sch_1:2026-11-30T10:00:00.000Z';
  await handleScheduledPrompt(deps(), command(firing, 'target'));
  await handleScheduledPrompt(deps(), command(firing, 'target'));

  const messages = await prisma.message.findMany({ where: { sessionId: 'target' } });
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatchObject({ id: firing, role: 'schedule', senderSessionId: 'setter', provenance });
  expect(messages[0]!.text).toMatch(/^\[relay schedule sch_1 "Tick"/);
  const turns = await prisma.turn.findMany({ where: { sessionId: 'target' } });
  expect(turns).toHaveLength(1);
  expect(turns[0]).toMatchObject({ messageId: firing, status: 'queued', mode: 'plan', provenance });
  const queued = await prisma.outboxMessage.findMany({ where: { subject: 'relay.session.v1.turn_queued' } });
  expect(queued.map((row) => (row.payload as { messageId: string }).messageId)).toEqual([firing]);
});

it('an archived target takes nothing', async () => {
  await handleScheduledPrompt(deps(), command('sch_1:2026-11-30T10:05:00.000Z', 'gone'));
  expect(await prisma.message.count({ where: { sessionId: 'gone' } })).toBe(0);
  expect(await prisma.turn.count({ where: { sessionId: 'gone' } })).toBe(0);
});
