// The fetch loop's replicas against a real PostgreSQL: two loops share this relay's subscriptions to a paired relay
// through leases (FOR UPDATE SKIP LOCKED), so no subscription is fetched by both at once; every event reaches the
// subscription service once and in order; a relay that stops answering is reported lost once and, on return, its
// kept events come as one replayed batch before link_restored; cursor and link state are in the database.
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { SystemClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import type { FetchOutcome } from '../src/domain/remote-link.ts';
import type { IngestEvent, RemoteEventsLine, RemoteIngest } from '../src/app/remote-ports.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { RemoteFetchLoop } from '../src/adapters/loops/remote-fetch-loop.ts';
import { PrismaRemoteSubscriptionStore } from '../src/adapters/store/prisma-remote-subscription-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'remote-fetch-loop-test', level: 'silent' });
const EVENTS_PER_SUBSCRIPTION = 6;
const SUBSCRIPTIONS = Array.from({ length: 8 }, (_, index) => `sub_${index}`);
/** The subscription whose relay does not answer its first fetches. */
const FLAKY = 'sub_3';

let database: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

function event(subscription: string, seq: number): IngestEvent {
  return {
    id: `${subscription}:e${seq}`,
    kind: 'turn_end',
    sessionId: '77aa',
    sessionTitle: 'Nightly deploy',
    text: `turn ${seq}`,
    status: 'done',
    refId: '',
    occurredAt: new Date(),
  };
}

it('shares the subscriptions between replicas by lease; each event is taken once, in order; a drop and its return are reported once each', async () => {
  const store = new PrismaRemoteSubscriptionStore(prisma);
  for (const id of SUBSCRIPTIONS) await store.open(id, 'build-box', new Date());

  const inFlight = new Set<string>();
  const overlaps: string[] = [];
  let flakyFailures = 3;
  // The paired relay: each fetch answers at most two new events after the cursor.
  const line: RemoteEventsLine = {
    register: async () => ({ sessions: [] }),
    end: async () => undefined,
    fetch: async (_relay, id, after): Promise<FetchOutcome<IngestEvent>> => {
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      try {
        await sleep(20);
        if (id === FLAKY && flakyFailures > 0) {
          flakyFailures -= 1;
          return { ok: false };
        }
        const last = Math.min(after + 2, EVENTS_PER_SUBSCRIPTION);
        const events = Array.from({ length: last - after }, (_, index) => event(id, after + index + 1));
        return { ok: true, events, cursor: last, dropped: 0 };
      } finally {
        inFlight.delete(id);
      }
    },
  };
  const taken = new Map<string, string[]>();
  const steps: string[] = [];
  const ingest: RemoteIngest = {
    ingest: async ({ subscriptionId, events, replayed }) => {
      taken.set(subscriptionId, [...(taken.get(subscriptionId) ?? []), ...events.map((one) => one.id)]);
      if (subscriptionId === FLAKY) steps.push(replayed ? `replayed ${events.length}` : `batch ${events.length}`);
      return { ended: false };
    },
    reportLink: async ({ subscriptionId, online }) => {
      if (subscriptionId === FLAKY) steps.push(online ? 'link_restored' : 'link_lost');
    },
    endRelay: async () => [],
  };
  const replicas = [0, 1].map(() => new RemoteFetchLoop({ subscriptions: store, line, ingest, clock: new SystemClock(), logger, intervalMs: 100 }));
  for (const replica of replicas) replica.start();
  try {
    await vi.waitFor(
      () => {
        for (const id of SUBSCRIPTIONS) expect(taken.get(id)?.length ?? 0).toBe(EVENTS_PER_SUBSCRIPTION);
      },
      { timeout: 30_000, interval: 100 },
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }

  expect(overlaps).toEqual([]);
  for (const id of SUBSCRIPTIONS) expect(taken.get(id)).toEqual(Array.from({ length: EVENTS_PER_SUBSCRIPTION }, (_, index) => `${id}:e${index + 1}`));
  expect(steps).toEqual(['link_lost', 'replayed 2', 'link_restored', 'batch 2', 'batch 2']);
  const rows = await prisma.remoteSubscription.findMany({ orderBy: { subscriptionId: 'asc' } });
  expect(rows.map((row) => ({ id: row.subscriptionId, cursor: row.cursor, online: row.online, leased: row.leaseUntil !== null }))).toEqual(
    SUBSCRIPTIONS.map((id) => ({ id, cursor: EVENTS_PER_SUBSCRIPTION, online: true, leased: false })),
  );
});
