// What list_schedules and the user API's GET /api/v1/schedules list, read from a real PostgreSQL: a conversation's or a
// user's active schedules and those ended in the last hour (older ones are not read at all), the oldest first, at most
// the newest 500 with `more` when there are more.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { createSchedule, listSchedules } from '../src/app/schedule-actions.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaScheduleStore } from '../src/adapters/store/prisma-schedule-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-01T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaScheduleStore;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaScheduleStore(prisma);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

beforeEach(async () => {
  await prisma.$executeRawUnsafe('TRUNCATE "schedules", "firings", "outbox" CASCADE');
});

/** A schedule of u1 made `minutes` ago, firing into `target`, ended at `endedAt` (null: active). */
function row(id: string, minutes: number, target: string, endedAt: Date | null) {
  const at = minutesAgo(minutes);
  return {
    id,
    userId: 'u1',
    title: id,
    text: 'reply tick',
    targetSessionId: target,
    settingSessionId: target,
    at,
    everyMinutes: 60,
    once: false,
    nextFireAt: NOW,
    provenance: {},
    createdAt: at,
    endedAt,
    endReason: endedAt === null ? null : 'unscheduled',
  };
}

const ids = (listed: { schedules: { id: string }[] }) => listed.schedules.map((schedule) => schedule.id);

it("lists a user's and a conversation's active schedules and those ended in the last hour, the oldest first", async () => {
  await prisma.schedule.createMany({
    data: [
      row('old-ended', 300, 's1', minutesAgo(61)),
      row('just-ended', 200, 's1', minutesAgo(60)),
      row('active', 100, 's1', null),
      row('other', 50, 's2', null),
      { ...row('theirs', 10, 's1', null), userId: 'u2' },
    ],
  });
  expect(await listSchedules(store, 'u1', '', NOW).then(ids)).toEqual(['just-ended', 'active', 'other']);
  expect(await listSchedules(store, 'u1', 's1', NOW)).toMatchObject({ more: false });
  expect(await listSchedules(store, 'u1', 's1', NOW).then(ids)).toEqual(['just-ended', 'active']);
});

it('lists the newest 500 and says there are more only when there are', async () => {
  await prisma.schedule.createMany({ data: Array.from({ length: 501 }, (_, n) => row(`sch_${String(n).padStart(3, '0')}`, n + 1, `s${n}`, null)) });
  const listed = await listSchedules(store, 'u1', '', NOW);
  // sch_000 is the newest, sch_500 the oldest: the oldest is left out, and the rest are listed oldest first.
  expect([listed.schedules.length, listed.more, listed.schedules[0]!.id, listed.schedules.at(-1)!.id]).toEqual([500, true, 'sch_499', 'sch_000']);
  await prisma.schedule.update({ where: { id: 'sch_000' }, data: { endedAt: minutesAgo(120) } });
  expect(await listSchedules(store, 'u1', '', NOW)).toMatchObject({ more: false });
});

it("a dry run counts a target's active schedules however many newer ones the user has", async () => {
  // Twenty firing into s1 (the most one conversation takes), older than 500 elsewhere: the listing does not hold them.
  await prisma.schedule.createMany({
    data: [
      ...Array.from({ length: 20 }, (_, n) => row(`into-s1-${n}`, 1000 + n, 's1', null)),
      ...Array.from({ length: 500 }, (_, n) => row(`elsewhere-${n}`, n + 1, `x${n}`, null)),
    ],
  });
  const request = {
    userId: 'u1',
    settingSessionId: 's1',
    settingSessionTitle: 'One',
    targetSessionId: 's1',
    targetSessionTitle: 'One',
    title: 'One more',
    text: 'reply tick',
    at: '',
    everyMinutes: 60,
    provenance: { originRelay: 'desk', originSessionId: 's1', originSessionTitle: 'One', model: 'script-1', hops: 0 },
  };
  await expect(createSchedule({ store, randomHex: () => 'abcdefabcdef' }, request, NOW, true)).rejects.toMatchObject({ code: 'REMOTE_RELAY_SCHEDULE_LIMIT' });
});
