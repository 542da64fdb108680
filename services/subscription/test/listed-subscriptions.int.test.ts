// list_subscriptions' rows as PrismaWatchStore reads them in plain SQL, against a real PostgreSQL: every field as it
// was stored (JSON columns, nulls, times in UTC), the watcher's active ones and those ended since the given instant,
// oldest first, and nobody else's; and the watcher's state and held events the listing shows beside them.
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import type { Subscription } from '../src/domain/subscriptions/subscription.ts';
import type { WatcherState } from '../src/domain/delivery/index.ts';
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

const listed = async (watcher: string, endedSince: Date) => (await store.subscriptionListing(watcher, endedSince)).subscriptions;

it("reads every field of the watcher's subscriptions as stored: the active ones and those ended since, oldest first", async () => {
  expect(await listed('w1', minutesAgo(60))).toEqual([OLDEST, ENDED_LATELY, FULL]);
});

it('leaves out those ended before the instant given', async () => {
  expect((await listed('w1', minutesAgo(10))).map((subscription) => subscription.id)).toEqual(['sub_oldest', 'sub_full']);
});

it("reads the watcher's state and its held and released events as stored with its subscriptions, times in UTC, and nobody else's", async () => {
  const state: WatcherState = { wakeUps: [minutesAgo(3), minutesAgo(1)], windowClosesAt: minutesAgo(-1), capSlotAt: null, ownPrompts: {} };
  await store.transaction(async (tx) => {
    await tx.lockWatcher('w1', 'u1');
    await tx.saveWatcherState('w1', state, NOW);
    await tx.lockWatcher('w2', 'u1');
    await tx.lockWatcher('w3', 'u1');
  });
  const digest = { kind: 'digest', subscriptionId: 'sub_full', digestMinutes: 10 };
  const event = (id: string, watcher: string, status: string, releaseAt: string | null, deliverAt: string | null, heldBy: unknown) =>
    pool.query(
      `INSERT INTO watcher_events (id, watcher_session_id, source_event_id, event, subscription_ids, status, release_at, deliver_at, held_by, received_at)
       VALUES ($1, $2, $1, '{}', '[]', $3, $4, $5, $6, '2026-12-07 09:59:00.000')`,
      [id, watcher, status, releaseAt, deliverAt, heldBy === null ? null : JSON.stringify(heldBy)],
    );
  await event('e_held', 'w1', 'held', '2026-12-07 10:10:00.123', null, digest);
  await event('e_released', 'w1', 'released', null, '2026-12-07 10:00:30.500', null);
  await event('e_new', 'w1', 'new', null, null, null);
  await event('e_theirs', 'w2', 'held', '2026-12-07 10:10:00.123', null, digest);

  const listing = await store.subscriptionListing('w1', minutesAgo(60));
  expect(listing.state).toEqual(state);
  expect(listing.held.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
    { status: 'held', releaseAt: new Date('2026-12-07T10:10:00.123Z'), deliverAt: null, heldBy: digest },
    { status: 'released', releaseAt: null, deliverAt: new Date('2026-12-07T10:00:30.500Z'), heldBy: null },
  ]);
  // Another watcher's listing holds its own only.
  expect((await store.subscriptionListing('w2', minutesAgo(60))).held).toEqual([
    { status: 'held', releaseAt: new Date('2026-12-07T10:10:00.123Z'), deliverAt: null, heldBy: digest },
  ]);
  // Without a subscription there is nothing to show them with.
  await event('e_nobodys', 'w3', 'held', '2026-12-07 10:10:00.123', null, digest);
  expect(await store.subscriptionListing('w3', minutesAgo(60))).toEqual({ subscriptions: [], held: [], state: undefined });
});
