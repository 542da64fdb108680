// MCP tasks' claims in a real PostgreSQL (PrismaMcpTaskStore): a claim takes the tasks still at work whose lease ran
// out (or that their runner let go), never an ended one or one still held; two replicas claiming at once never take
// the same task; and a write of the runner that lost the task changes nothing.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaMcpTaskStore } from '../src/adapters/store/prisma-mcp-task-store.ts';
import type { McpTask, McpTaskStatus } from '../src/app/mcp-tasks/mcp-tasks.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaMcpTaskStore;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaMcpTaskStore(prisma);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const task = (id: string, status: McpTaskStatus, leaseExpiresAt: Date, runnerId = 'gw-a'): McpTask => ({
  id,
  sessionId: 's1',
  status,
  statusMessage: '',
  resultJson: '',
  cardId: '',
  inputJson: '{"action":"wait"}',
  userId: 'u1',
  external: true,
  progressJson: '',
  runnerId,
  leaseExpiresAt,
  createdAt: NOW,
  updatedAt: NOW,
});

it('claims the tasks at work whose lease ran out or that were let go, once, and never an ended or a held one', async () => {
  await store.create(task('lapsed', 'working', at(-1_000)));
  await store.create(task('let-go', 'input_required', NOW, ''));
  await store.create(task('held', 'working', at(30_000)));
  await store.create(task('done', 'completed', at(-60_000)));
  await store.create(task('cancelled', 'cancelled', at(-60_000)));

  const claims = await Promise.all([store.claimExpired('gw-b', NOW, at(60_000), 10), store.claimExpired('gw-c', NOW, at(60_000), 10)]);
  const claimed = claims.flat();
  expect(claimed.map((one) => one.id).sort()).toEqual(['lapsed', 'let-go']);
  for (const [runner, tasks] of [
    ['gw-b', claims[0]!],
    ['gw-c', claims[1]!],
  ] as const) {
    for (const one of tasks) expect(one).toMatchObject({ runnerId: runner, leaseExpiresAt: at(60_000), inputJson: '{"action":"wait"}' });
  }
  expect(await store.claimExpired('gw-d', at(1_000), at(61_000), 10)).toEqual([]);
});

it('writes a task only for the runner that holds it', async () => {
  const lapsed = (await store.find('lapsed', 's1'))!;
  const [lost, holder] = lapsed.runnerId === 'gw-b' ? ['gw-c', 'gw-b'] : ['gw-b', 'gw-c'];
  expect(await store.updateUnlessEnded({ ...lapsed, status: 'completed', runnerId: lost }, lost)).toMatchObject({ status: 'working', runnerId: holder });
  expect(await store.updateUnlessEnded({ ...lapsed, status: 'completed' }, holder)).toMatchObject({ status: 'completed' });
});
