// Scale-out: two replicas' planners share one database. Events for several watchers arrive while both
// evaluate due watchers at once; one replica is stopped mid-stream (its connections closed, whatever it
// held rolled back). Every event reaches its watcher exactly once, wake-ups numbered 1..n per watcher, in order.
import { PrismaPg } from '@prisma/adapter-pg';
import { ManualClock } from '@relay/clock';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../src/store/prisma-watch-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const WATCHERS = 4;
const EVENTS = 120;

let database: TestDatabase;
const clients: PrismaClient[] = [];

function client(): PrismaClient {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  clients.push(prisma);
  return prisma;
}

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
});

afterAll(async () => {
  await Promise.all(clients.map((prisma) => prisma.$disconnect().catch(() => undefined)));
  await database?.drop();
});

it('delivers every event exactly once and in order per watcher while one of two replicas stops', { timeout: 120_000 }, async () => {
  const clock = new ManualClock(new Date('2026-10-24T10:00:00Z'));
  const a = new PrismaWatchStore(client());
  const bPrisma = client();
  const b = new PrismaWatchStore(bPrisma);
  for (let w = 0; w < WATCHERS; w++) {
    const spec = parseSubscribe({
      watcherSessionId: `watcher-${w}`,
      sessions: [`worker-${w}`],
      exclude: [],
      events: [],
      once: false,
      match: '',
      stalledMinutes: 0,
      heartbeatMinutes: 0,
      digestMinutes: 0,
      quietHours: null,
      resolved: [{ id: `worker-${w}`, title: `Worker ${w}` }],
    });
    await a.subscribe({ userId: 'u1', watcherSessionId: `watcher-${w}`, spec, now: clock.now(), dryRun: false });
  }

  let bRunning = true;
  const loop = async (store: PrismaWatchStore, alive: () => boolean) => {
    while (alive()) {
      try {
        if (!(await store.evaluateNextDue(clock.now()))) await new Promise((resolve) => setTimeout(resolve, 2));
      } catch {
        if (store === b) return; // its connections were closed under it
        throw new Error('replica A failed');
      }
    }
  };
  let aRunning = true;
  const loops = [loop(a, () => aRunning), loop(b, () => bRunning)];

  for (let i = 0; i < EVENTS; i++) {
    const w = i % WATCHERS;
    const occurredAt = clock.now();
    await a.ingest('test', `m${i}`, {
      type: 'session_events',
      userId: 'u1',
      sessionId: `worker-${w}`,
      senderSessionId: null,
      candidates: [
        {
          sourceEventId: `e${String(i).padStart(4, '0')}`,
          kind: 'turn_end',
          text: `reply ${i}`,
          event: { id: `e${i}`, kind: 'turn_end', occurredAt, relay: null, session: { id: `worker-${w}`, title: '' }, status: 'done', text: `reply ${i}`, promptMessageId: null },
        },
      ],
    }, clock.now());
    // Every 7th event the clock moves past the 30-second window, so many wake-ups go out during the run.
    if (i % 7 === 6) clock.advance(31_000);
    if (i === EVENTS / 2) {
      bRunning = false;
      await bPrisma.$disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // Past every window and cap slot, then replica A drains what is left.
  for (let hour = 0; hour < 6; hour++) {
    clock.advance(30 * 60_000);
    while (await a.evaluateNextDue(clock.now()));
  }
  aRunning = false;
  await Promise.all(loops);

  const prisma = clients[0]!;
  const rows = await prisma.outboxMessage.findMany({ where: { subject: 'relay.subscription.v1.cmd.deliver_wakeup' } });
  const all: string[] = [];
  for (let w = 0; w < WATCHERS; w++) {
    const mine = rows
      .map((row) => row.payload as { watcherSessionId: string; seq: string; sourceEventIds: string[]; wakeupId: string })
      .filter((payload) => payload.watcherSessionId === `watcher-${w}`)
      .sort((x, y) => Number(x.seq) - Number(y.seq));
    expect(mine.map((payload) => Number(payload.seq))).toEqual(mine.map((_, index) => index + 1));
    expect(mine.every((payload) => payload.wakeupId === `watcher-${w}:${payload.seq}`)).toBe(true);
    const events = mine.flatMap((payload) => payload.sourceEventIds);
    expect(events).toEqual([...events].sort());
    all.push(...events);
  }
  expect(all.sort()).toEqual(Array.from({ length: EVENTS }, (_, i) => `e${String(i).padStart(4, '0')}`));
  expect(await prisma.watcherEvent.count({ where: { status: { not: 'delivered' } } })).toBe(0);
});
