// The watched side's stalled, all_idle and heartbeat for paired relays' watches, against a real PostgreSQL (our
// subscription service, which computes them, is faked through its port): only watches that ask for them are
// computed; what comes back is kept for the watch after its other events, each id once however many passes and
// replicas compute it again; a watch that ended keeps nothing.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { SystemClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { DEFAULT_BUFFER_LIMITS } from '../src/domain/remote-buffer.ts';
import type { RegisteredWatch, WatchEventComputer } from '../src/app/remote-ports.ts';
import type { RemoteEventInput, RemoteWatch } from '../src/domain/remote-watch.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { RemoteComputeLoop } from '../src/adapters/loops/remote-compute-loop.ts';
import { computingWatches, keepSessionEvents } from '../src/app/remote-watches.ts';
import { PrismaRemoteWatchStore } from '../src/adapters/store/prisma-remote-watch-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'remote-compute-loop-test', level: 'silent' });
// The loops run on the system clock, and kept events expire after days on it: the test's instants are today's.
const NOW = new Date(Date.now() - (Date.now() % 60_000));
const IDLE_AT = new Date(NOW.getTime() - 60_000);

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaRemoteWatchStore;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaRemoteWatchStore(prisma, DEFAULT_BUFFER_LIMITS);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const watch = (id: string, fields: Partial<RemoteWatch>): RemoteWatch => ({
  relay: 'desk',
  id,
  userId: 'u1',
  scope: 'all',
  sessions: [],
  exclude: [],
  events: [],
  stalledMinutes: 0,
  heartbeatMinutes: 0,
  ...fields,
});
const allIdle = (subscriptionId: string): RemoteEventInput => ({
  id: `all_idle:${subscriptionId}:${IDLE_AT.toISOString()}`,
  kind: 'all_idle',
  userId: 'u1',
  sessionId: '',
  text: `no turn or task is running in the 2 watched sessions (subscription ${subscriptionId})`,
  status: '',
  refId: '',
  occurredAt: IDLE_AT,
});

it('keeps each computed event once for the watches that ask for them, after their other events, across passes and replicas', async () => {
  await store.keep(watch('sub_default', {}), NOW);
  await store.keep(watch('sub_beat', { events: ['turn_end'], heartbeatMinutes: 30 }), NOW);
  await store.keep(watch('sub_turns', { events: ['turn_end'] }), NOW);
  await keepSessionEvents(
    store,
    { consumer: 'test', id: 'm1' },
    [{ id: 'ev1', kind: 'turn_end', userId: 'u1', sessionId: 's1', text: 'done', status: 'done', refId: '', occurredAt: NOW }],
    NOW,
  );

  expect((await computingWatches(store)).map((one) => [one.id, one.createdAt])).toEqual([
    ['sub_beat', NOW],
    ['sub_default', NOW],
  ]);
  const asked: string[] = [];
  const computer: WatchEventComputer = {
    compute: async (one: RegisteredWatch) => {
      asked.push(one.id);
      return [allIdle(one.id)];
    },
  };
  const replicas = [0, 1].map(() => new RemoteComputeLoop({ watches: store, computer, clock: new SystemClock(), logger, intervalMs: 50 }));
  for (const loop of replicas) loop.start();
  await vi.waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(8), { timeout: 15_000, interval: 50 });
  await Promise.all(replicas.map((loop) => loop.stop()));
  expect(asked).not.toContain('sub_turns');

  const page = await store.fetch('desk', 'sub_default', 0, NOW);
  expect(page?.events.map(({ seq, id, kind, text }) => ({ seq, id, kind, text }))).toEqual([
    { seq: 1, id: 'ev1', kind: 'turn_end', text: 'done' },
    { seq: 2, id: allIdle('sub_default').id, kind: 'all_idle', text: 'no turn or task is running in the 2 watched sessions (subscription sub_default)' },
  ]);
  expect((await store.fetch('desk', 'sub_beat', 0, NOW))?.events.map((event) => event.kind)).toEqual(['turn_end', 'all_idle']);
  expect((await store.fetch('desk', 'sub_turns', 0, NOW))?.events.map((event) => event.kind)).toEqual(['turn_end']);
  // Acknowledged, it is not kept again when it is computed again.
  await store.fetch('desk', 'sub_default', 2, NOW);
  expect(await store.keepComputed('desk', 'sub_default', [allIdle('sub_default')], NOW)).toBe(0);
  expect((await store.fetch('desk', 'sub_default', 2, NOW))?.events).toEqual([]);
});

it('keeps nothing for a watch that ended', async () => {
  expect(await store.keepComputed('desk', 'sub_gone', [allIdle('sub_gone')], NOW)).toBe(0);
});
