// list_subscriptions' rows as PrismaWatchStore reads them in plain SQL, against a real PostgreSQL: every field as it
// was stored (JSON columns, nulls, times in UTC), the watcher's active ones and those ended since the given instant,
// oldest first, and nobody else's.
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import type { Subscription } from '../src/domain/subscriptions/subscription.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-07T10:00:00.123Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

let database: TestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;
let store: PrismaWatchStore;

/** A subscription of watcher `w1` with every optional field left out. */
function plain(id: string, createdAt: Date, overrides: Partial<Subscription> = {}): Subscription {
  return {
    id,
    userId: 'u1',
    watcherSessionId: 'w1',
    relay: '',
    scope: 'all',
    sessions: [],
    exclude: [],
    events: ['turn_end'],
    once: false,
    match: '',
    stalledMinutes: 0,
    heartbeatMinutes: null,
    digestMinutes: null,
    quietHours: null,
    createdAt,
    lastDeliveredAt: null,
    endedAt: null,
    endReason: null,
    ...overrides,
  };
}

const FULL = plain('sub_full', minutesAgo(30), {
  relay: 'lab',
  scope: 'sessions',
  sessions: [
    { id: 's1', title: 'Builder' },
    { id: 's2', title: 'Tester' },
  ],
  exclude: ['s3'],
  events: ['turn_end', 'error', 'stalled'],
  once: true,
  match: 'deploy',
  stalledMinutes: 15,
  heartbeatMinutes: 60,
  digestMinutes: 10,
  quietHours: { from: '23:00', to: '06:00', tz: 'Europe/Berlin' },
  lastDeliveredAt: minutesAgo(5),
});
const OLDEST = plain('sub_oldest', minutesAgo(90));
const ENDED_LATELY = plain('sub_ended_lately', minutesAgo(80), { endedAt: minutesAgo(20), endReason: 'unsubscribed' });
const ENDED_LONG_AGO = plain('sub_ended_long_ago', minutesAgo(200), { endedAt: minutesAgo(120), endReason: 'once_fired' });
const ANOTHER_WATCHERS = plain('sub_theirs', minutesAgo(10), { watcherSessionId: 'w2' });

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  ({ prisma, pool } = databaseClients(database.url));
  store = new PrismaWatchStore(prisma, pool);
  for (const subscription of [FULL, OLDEST, ENDED_LATELY, ENDED_LONG_AGO, ANOTHER_WATCHERS]) await store.createSubscription(subscription);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

it("reads every field of the watcher's subscriptions as stored: the active ones and those ended since, oldest first", async () => {
  expect(await store.listedSubscriptions('w1', minutesAgo(60))).toEqual([OLDEST, ENDED_LATELY, FULL]);
});

it('leaves out those ended before the instant given', async () => {
  expect((await store.listedSubscriptions('w1', minutesAgo(10))).map((subscription) => subscription.id)).toEqual(['sub_oldest', 'sub_full']);
});
