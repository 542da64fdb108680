// Scale-out: two replicas' planners share one database. Events for several watchers arrive while both
// evaluate due watchers at once; one replica is stopped mid-stream (its connections closed, whatever it
// held rolled back). Every event reaches its watcher exactly once, wake-ups numbered 1..n per watcher, in order,
// and the hourly cap holds across the replicas: past 20 wake-ups in an hour the rest come as cap digests.
import { ManualClock } from '@relay/clock';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseSubscribe } from '../src/domain/subscriptions/subscribe-rules.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaWatchStore } from '../src/adapters/store/prisma-watch-store.ts';
import { evaluateNextDue } from '../src/app/evaluate-watchers.ts';
import { ingestWatchEvent } from '../src/app/ingest-watch-events.ts';
import { subscribe } from '../src/app/manage-subscriptions.ts';
import { type WatchDeps } from '../src/app/ports.ts';
import type pg from 'pg';
import { databaseClients } from './fixtures/database-clients.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const WATCHERS = 4;
const EVENTS = 120;

let database: TestDatabase;
const clients: { prisma: PrismaClient; pool: pg.Pool }[] = [];

function client(): { prisma: PrismaClient; pool: pg.Pool } {
  const made = databaseClients(database.url);
  clients.push(made);
  return made;
}

/** Closes a replica's connections under it. */
async function close({ prisma, pool }: { prisma: PrismaClient; pool: pg.Pool }): Promise<void> {
  await prisma.$disconnect().catch(() => undefined);
  if (!pool.ended) await pool.end();
}

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
});

afterAll(async () => {
  await Promise.all(clients.map(close));
  await database?.drop();
});

it('delivers every event exactly once and in order per watcher while one of two replicas stops', { timeout: 120_000 }, async () => {
  const clock = new ManualClock(new Date('2026-10-24T10:00:00Z'));
  const aClients = client();
  const a = { store: new PrismaWatchStore(aClients.prisma, aClients.pool) };
  const bClients = client();
  const b = { store: new PrismaWatchStore(bClients.prisma, bClients.pool) };
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
    await subscribe(a, { userId: 'u1', watcherSessionId: `watcher-${w}`, spec, now: clock.now(), dryRun: false });
  }

  let bRunning = true;
  const loop = async (store: WatchDeps, alive: () => boolean) => {
    while (alive()) {
      try {
        if (!(await evaluateNextDue(store, clock.now()))) await new Promise((resolve) => setTimeout(resolve, 2));
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
    await ingestWatchEvent(
      a,
      'test',
      `m${i}`,
      {
        type: 'session_events',
        userId: 'u1',
        sessionId: `worker-${w}`,
        senderSessionId: null,
        candidates: [
          {
            sourceEventId: `e${String(i).padStart(4, '0')}`,
            kind: 'turn_end',
            text: `reply ${i}`,
            event: {
              id: `e${i}`,
              kind: 'turn_end',
              occurredAt,
              relay: null,
              session: { id: `worker-${w}`, title: '' },
              status: 'done',
              text: `reply ${i}`,
              promptMessageId: null,
            },
          },
        ],
      },
      clock.now(),
    );
    // Every 7th event the clock moves past the 30-second window, so many wake-ups go out during the run.
    if (i % 7 === 6) clock.advance(31_000);
    if (i === EVENTS / 2) {
      bRunning = false;
      await close(bClients);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // Past every window and cap slot, then replica A drains what is left.
  for (let hour = 0; hour < 6; hour++) {
    clock.advance(30 * 60_000);
    while (await evaluateNextDue(a, clock.now()));
  }
  aRunning = false;
  await Promise.all(loops);

  const { prisma } = clients[0]!;
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

it('keeps the hourly cap across replicas while one stops: past 20 wake-ups an hour the rest come every 10 minutes', { timeout: 180_000 }, async () => {
  const clock = new ManualClock(new Date('2026-10-24T12:00:00Z'));
  const aClients = client();
  const a = { store: new PrismaWatchStore(aClients.prisma, aClients.pool) };
  const bClients = client();
  const b = { store: new PrismaWatchStore(bClients.prisma, bClients.pool) };
  const watchers = ['capped-0', 'capped-1'];
  for (const watcher of watchers) {
    const worker = `${watcher}-worker`;
    const spec = parseSubscribe({
      watcherSessionId: watcher,
      sessions: [worker],
      exclude: [],
      events: ['turn_end'],
      once: false,
      match: '',
      stalledMinutes: 0,
      heartbeatMinutes: 0,
      digestMinutes: 0,
      quietHours: null,
      resolved: [{ id: worker, title: 'Busy worker' }],
    });
    await subscribe(a, { userId: 'u2', watcherSessionId: watcher, spec, now: clock.now(), dryRun: false });
  }
  // Both replicas evaluate at every step, at the same time; the clock moves in 30-second steps, so windows close and
  // cap slots fall exactly on a step and each wake-up goes at its planned instant (the one the cap's log records).
  let bRunning = true;
  const drain = async (store: WatchDeps) => {
    while (await evaluateNextDue(store, clock.now()));
  };
  const step = async () => {
    clock.advance(30_000);
    await Promise.all([drain(a), bRunning ? drain(b) : Promise.resolve()]);
  };

  // 45 events per watcher, one per 30 s window: 45 wake-ups wanted in 23 minutes, more than twice the cap.
  const PER_WATCHER = 45;
  for (let i = 0; i < PER_WATCHER; i++) {
    for (const watcher of watchers) {
      const id = `${watcher}-e${String(i).padStart(3, '0')}`;
      await ingestWatchEvent(
        i % 2 === 0 || !bRunning ? a : b,
        'cap-test',
        id,
        {
          type: 'session_events',
          userId: 'u2',
          sessionId: `${watcher}-worker`,
          senderSessionId: null,
          candidates: [
            {
              sourceEventId: id,
              kind: 'turn_end',
              text: `reply ${i}`,
              event: {
                id,
                kind: 'turn_end',
                occurredAt: clock.now(),
                relay: null,
                session: { id: `${watcher}-worker`, title: '' },
                status: 'done',
                text: `reply ${i}`,
                promptMessageId: null,
              },
            },
          ],
        },
        clock.now(),
      );
    }
    await Promise.all([drain(a), bRunning ? drain(b) : Promise.resolve()]);
    await step();
    if (i === Math.floor(PER_WATCHER / 3)) {
      bRunning = false;
      await close(bClients);
    }
  }
  // Through the cap slots, two hours, replica A alone.
  for (let n = 0; n < 240; n++) await step();

  const { prisma } = clients[0]!;
  for (const watcher of watchers) {
    const rows = await prisma.watcherEvent.findMany({ where: { watcherSessionId: watcher } });
    expect(rows.every((row) => row.status === 'delivered')).toBe(true);
    expect(rows).toHaveLength(PER_WATCHER);
    const byWakeUp = new Map<string, { at: number; cap: boolean; count: number }>();
    for (const row of rows) {
      const seen = byWakeUp.get(row.wakeupId!) ?? { at: row.deliverAt!.getTime(), cap: false, count: 0 };
      byWakeUp.set(row.wakeupId!, { at: seen.at, cap: seen.cap || row.capDigest, count: seen.count + 1 });
    }
    const wakeUps = [...byWakeUp.values()].sort((x, y) => x.at - y.at);
    const HOUR = 60 * 60_000;
    // Outside the cap's digests, never more than 20 wake-ups in an hour.
    const plain = wakeUps.filter((w) => !w.cap);
    for (const wakeUp of plain) expect(plain.filter((w) => w.at > wakeUp.at - HOUR && w.at <= wakeUp.at).length).toBeLessThanOrEqual(20);
    expect(plain.length).toBeGreaterThanOrEqual(20);
    const capped = wakeUps.filter((w) => w.cap);
    expect(capped.length).toBeGreaterThan(0);
    expect(wakeUps.length).toBeLessThan(PER_WATCHER);
    for (let i = 1; i < capped.length; i++) expect(capped[i]!.at - capped[i - 1]!.at).toBeGreaterThanOrEqual(10 * 60_000);
    const texts = (await prisma.outboxMessage.findMany())
      .map((row) => row.payload as { watcherSessionId: string; text: string })
      .filter((p) => p.watcherSessionId === watcher);
    expect(texts.some((text) => text.text.includes('events (past 20 wake-ups an hour, every 10 min; questions and errors come at once):'))).toBe(true);
  }
});
