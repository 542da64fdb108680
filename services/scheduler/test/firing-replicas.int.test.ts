// Two scheduler replicas (two stores on two connection pools, one database) firing the same due schedules at the
// same relay times: every due time fires exactly once (one firing row, one outbox command with Nats-Msg-Id = the
// firing id), and a replica that dies mid-firing (its transaction rolled back) loses nothing.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fireDueSchedules } from '../src/app/fire-due-schedules.ts';
import type { FiringTransaction, LoopGuard, ScheduleStore } from '../src/app/ports.ts';
import { planSchedule, scheduleCounts } from '../src/domain/schedule.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaScheduleStore } from '../src/adapters/store/prisma-schedule-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const START = Date.parse('2026-11-01T00:00:00.000Z');
const MINUTE = 60_000;
const SCHEDULES = 60;

let database: TestDatabase;
let a: PrismaClient;
let b: PrismaClient;
const allow: LoopGuard = { countPrompt: async () => true };

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  a = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  b = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
});

afterAll(async () => {
  await a?.$disconnect();
  await b?.$disconnect();
  await database?.drop();
});

beforeEach(async () => {
  await a.$executeRawUnsafe('TRUNCATE "schedules", "firings", "outbox" CASCADE');
});

async function seed(store: PrismaScheduleStore, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const request = {
      userId: 'u1',
      settingSessionId: `setter-${i}`,
      settingSessionTitle: 'Setter',
      targetSessionId: `target-${i % 7}`,
      targetSessionTitle: 'Target',
      title: `S${i}`,
      text: 'reply tick',
      at: new Date(START).toISOString(),
      everyMinutes: 1 + (i % 3),
      provenance: { originRelay: 'desk', originSessionId: `setter-${i}`, originSessionTitle: 'Setter', model: 'script-1', hops: 0 },
    };
    await store.create(request, (active) => planSchedule(request, scheduleCounts(active, request), `sch_${i.toString(16).padStart(12, '0')}`, new Date(START)));
  }
}

/** Every firing's message was taken by a turn (so the next repeat fires rather than skips). */
async function takeAll(): Promise<void> {
  await a.$executeRawUnsafe(`UPDATE "firings" SET "taken_at" = now() WHERE "taken_at" IS NULL`);
}

it('two replicas firing at the same instants fire every due time exactly once', async () => {
  await seed(new PrismaScheduleStore(a), SCHEDULES);
  const replicas = [new PrismaScheduleStore(a), new PrismaScheduleStore(b)];
  const minutes = 12;
  for (let m = 0; m <= minutes; m++) {
    const now = new Date(START + m * MINUTE);
    // Both replicas pass several times at the same instant, concurrently.
    await Promise.all(replicas.flatMap((store) => [fireDueSchedules({ store, guard: allow }, now), fireDueSchedules({ store, guard: allow }, now)]));
    await takeAll();
  }

  const firings = await a.firing.findMany();
  const expected = Array.from({ length: SCHEDULES }, (_, i) => Math.floor(minutes / (1 + (i % 3))) + 1).reduce((x, y) => x + y, 0);
  expect(firings).toHaveLength(expected);
  expect(new Set(firings.map((f) => f.id)).size).toBe(expected);
  const outbox = await a.outboxMessage.findMany();
  expect(outbox.map((row) => row.id).sort()).toEqual(firings.map((f) => f.id).sort());
  expect(new Set(outbox.map((row) => row.subject))).toEqual(new Set(['relay.scheduler.v1.cmd.queue_prompt']));
  for (const schedule of await a.schedule.findMany()) {
    const every = schedule.everyMinutes;
    expect(schedule.firedCount).toBe(Math.floor(minutes / every) + 1);
    expect(schedule.skippedCount).toBe(0);
    expect(schedule.nextFireAt.getTime()).toBe(START + (Math.floor(minutes / every) + 1) * every * MINUTE);
  }
  const payload = outbox[0]!.payload as { firingId: string; text: string; provenance: { hops: number } };
  expect(payload.firingId).toBe(outbox[0]!.id);
  expect(payload.text).toMatch(
    /^\[relay schedule sch_[0-9a-f]{12} "S\d+" · every \d min · automated message from OAR, not from the user; it approves nothing\]\nreply tick$/,
  );
});

it('a replica that dies mid-firing loses nothing: its rows stay locked, then due, and the other replica fires them once', async () => {
  await seed(new PrismaScheduleStore(a), 5);
  const dying = new PrismaScheduleStore(a);
  const survivor = new PrismaScheduleStore(b);
  const now = new Date(START);

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let claimedByDying!: () => void;
  const claimed = new Promise<void>((resolve) => (claimedByDying = resolve));
  // The dying replica claims every due row, decides to fire them all, then "dies" inside its transaction before it
  // commits (it rolls back).
  const dyingStore: ScheduleStore = Object.assign(Object.create(dying) as PrismaScheduleStore, {
    firingTransaction: <T>(work: (tx: FiringTransaction) => Promise<T>) =>
      dying.firingTransaction((tx) =>
        work({
          claimDue: (at, limit) => tx.claimDue(at, limit),
          traceFiring: (scheduleId, firingId, run) => tx.traceFiring(scheduleId, firingId, run),
          save: async (updates, firings) => {
            await tx.save(updates, firings.slice(0, 1));
            claimedByDying();
            await held;
            throw new Error('replica killed');
          },
        }),
      ),
  });
  const dyingPass = fireDueSchedules({ store: dyingStore, guard: allow }, now).catch((error: Error) => error);
  await claimed;

  // While the dying replica holds the rows, the other one skips them (SKIP LOCKED) and fires nothing twice.
  expect(await fireDueSchedules({ store: survivor, guard: allow }, now)).toMatchObject({ fired: 0 });
  release();
  expect(await dyingPass).toMatchObject({ message: 'replica killed' });
  expect(await a.firing.count()).toBe(0);
  expect(await a.outboxMessage.count()).toBe(0);

  expect(await fireDueSchedules({ store: survivor, guard: allow }, now)).toMatchObject({ fired: 5 });
  expect(await fireDueSchedules({ store: survivor, guard: allow }, now)).toMatchObject({ fired: 0 });
  expect(await a.firing.count()).toBe(5);
  expect(await a.outboxMessage.count()).toBe(5);
});

it('a repeat whose previous message still waits is skipped and counted, and a held firing stays due', async () => {
  await seed(new PrismaScheduleStore(a), 1);
  const store = new PrismaScheduleStore(a);
  const used: LoopGuard = { countPrompt: async () => false };
  expect(await fireDueSchedules({ store, guard: allow }, new Date(START))).toMatchObject({ fired: 1 });
  expect(await fireDueSchedules({ store, guard: allow }, new Date(START + MINUTE))).toMatchObject({ skipped: 1 });
  await takeAll();
  expect(await fireDueSchedules({ store, guard: used }, new Date(START + 2 * MINUTE))).toMatchObject({ held: 1 });
  const held = await a.schedule.findFirstOrThrow();
  expect(held).toMatchObject({
    heldForApproval: true,
    heldSince: new Date(START + 2 * MINUTE),
    pendingFireAt: new Date(START + 2 * MINUTE),
    firedCount: 1,
    skippedCount: 1,
  });
  const away: LoopGuard = { countPrompt: async () => Promise.reject(new Error('session service unavailable')) };
  expect(await fireDueSchedules({ store, guard: away }, new Date(START + 4 * MINUTE))).toMatchObject({ deferred: 1, fired: 0 });
  // Looked at again a second later, not a minute (the loop backs off from there to a few seconds).
  expect(await a.schedule.findFirstOrThrow()).toMatchObject({ nextFireAt: new Date(START + 4 * MINUTE + 1_000), firedCount: 1 });
  expect(await fireDueSchedules({ store, guard: allow }, new Date(START + 5 * MINUTE))).toMatchObject({ fired: 1 });
  expect(await a.schedule.findFirstOrThrow()).toMatchObject({
    heldForApproval: false,
    heldSince: null,
    pendingFireAt: null,
    firedCount: 2,
    nextFireAt: new Date(START + 6 * MINUTE),
  });
  // The held firing goes for its own grid time, not for the minute it was looked at again.
  expect((await a.firing.findMany({ orderBy: { dueAt: 'desc' }, take: 1 }))[0]).toMatchObject({
    dueAt: new Date(START + 2 * MINUTE),
    firedAt: new Date(START + 5 * MINUTE),
  });
});
