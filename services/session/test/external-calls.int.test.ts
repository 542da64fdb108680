// External sessions' calls in flight in a real PostgreSQL: one row per call, the latest expiry per session, a
// release removes only its call, a hold clears the session's lapsed rows, a batch renews only the holds in force (a
// call announced again only once its lease reaches past what was announced), and a session's removal takes its rows.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaExternalCalls } from '../src/adapters/store/prisma-external-calls.ts';
import { HOLD_ANNOUNCED_PAST_LEASE_MS } from '../src/domain/external/external-calls.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-03T10:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

let database: TestDatabase;
let prisma: PrismaClient;
let calls: PrismaExternalCalls;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  calls = new PrismaExternalCalls(prisma);
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  for (const id of ['editor', 'cursor', 'ide']) {
    await prisma.session.create({
      data: { id, userId: 'u1', title: id, provider: 'external', model: '', origin: 'external', state: 'idle', cwd: '', createdAt: NOW, lastActivityAt: NOW },
    });
  }
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

it('keeps one row per call and answers the latest expiry of each session asked about', async () => {
  await calls.hold('editor', 'c1', at(60_000), NOW);
  await calls.hold('editor', 'c2', at(90_000), NOW);
  await calls.hold('editor', 'c1', at(120_000), at(60_000)); // renewed
  await calls.hold('cursor', 'c1', at(10_000), NOW);
  expect(await calls.latestExpiries(['editor', 'cursor', 'other'])).toEqual(
    new Map([
      ['editor', at(120_000)],
      ['cursor', at(10_000)],
    ]),
  );
  expect(await calls.latestExpiries(['cursor'])).toEqual(new Map([['cursor', at(10_000)]]));
});

it('releases only the call named; a hold drops the session’s lapsed rows', async () => {
  await calls.release('editor', 'c1');
  expect(await calls.latestExpiries(['editor'])).toEqual(new Map([['editor', at(90_000)]]));
  await calls.hold('editor', 'c3', at(200_000), at(100_000));
  expect((await prisma.externalCall.findMany({ where: { sessionId: 'editor' } })).map((row) => row.callId)).toEqual(['c3']);
  expect(await prisma.externalCall.count({ where: { sessionId: 'cursor' } })).toBe(1);
});

it('renews the holds in force in one batch, announcing each, and answers the ones gone without setting them again', async () => {
  await calls.hold('cursor', 'c2', at(160_000), at(100_000));
  await calls.hold('editor', 'c4', at(120_000), at(100_000));
  const announced = () => prisma.outboxMessage.count({ where: { subject: { endsWith: 'external_call_held' } } });
  const before = await announced();
  // editor/c3 holds until 200 s, cursor/c2 until 160 s; cursor/c1 lapsed (cursor/c2's hold dropped it), editor/c4 lapsed at 120 s, editor/c1 was released.
  const gone = await calls.renew(
    [
      { sessionId: 'editor', callId: 'c3' },
      { sessionId: 'cursor', callId: 'c1' },
      { sessionId: 'cursor', callId: 'c2' },
      { sessionId: 'editor', callId: 'c1' },
      { sessionId: 'editor', callId: 'c4' },
    ],
    at(210_000),
    at(150_000),
  );
  expect(gone).toEqual([
    { sessionId: 'cursor', callId: 'c1' },
    { sessionId: 'editor', callId: 'c1' },
    { sessionId: 'editor', callId: 'c4' },
  ]);
  const rows = await prisma.externalCall.findMany({ orderBy: [{ sessionId: 'asc' }, { callId: 'asc' }] });
  expect(rows.map((row) => [row.sessionId, row.callId, row.expiresAt])).toEqual([
    ['cursor', 'c2', at(210_000)],
    ['editor', 'c3', at(210_000)],
    ['editor', 'c4', at(120_000)],
  ]);
  expect((await announced()) - before).toBe(2);
  expect(await calls.renew([], at(220_000), at(160_000))).toEqual([]);
});

it('announces a held call past its lease, and again only when a renewal’s lease reaches past what was announced', async () => {
  const announced = async () =>
    (await prisma.outboxMessage.findMany({ where: { subject: { endsWith: 'external_call_held' } }, orderBy: { createdAt: 'asc' } }))
      .map((row) => row.payload as { sessionId: string; heldUntil: string })
      .filter((payload) => payload.sessionId === 'ide')
      .map((payload) => new Date(payload.heldUntil));
  await calls.hold('ide', 'c1', at(60_000), NOW, 'u1');
  expect(await announced()).toEqual([at(60_000 + HOLD_ANNOUNCED_PAST_LEASE_MS)]);

  // Renewed every third of the lease: the leases up to what was announced announce nothing.
  for (let now = 20_000; now <= HOLD_ANNOUNCED_PAST_LEASE_MS; now += 20_000) {
    expect(await calls.renew([{ sessionId: 'ide', callId: 'c1' }], at(now + 60_000), at(now))).toEqual([]);
  }
  expect(await announced()).toHaveLength(1);
  expect(await calls.latestExpiries(['ide'])).toEqual(new Map([['ide', at(HOLD_ANNOUNCED_PAST_LEASE_MS + 60_000)]]));

  // The next lease reaches past it: announced once, as far past that lease, whatever the renewals in the same batch.
  const past = HOLD_ANNOUNCED_PAST_LEASE_MS + 80_000;
  await calls.renew([{ sessionId: 'ide', callId: 'c1' }], at(past), at(past - 60_000));
  await calls.renew([{ sessionId: 'ide', callId: 'c1' }], at(past), at(past - 60_000));
  expect(await announced()).toEqual([at(60_000 + HOLD_ANNOUNCED_PAST_LEASE_MS), at(past + HOLD_ANNOUNCED_PAST_LEASE_MS)]);
});

it('a removed session takes its holds with it', async () => {
  await prisma.session.delete({ where: { id: 'cursor' } });
  expect(await prisma.externalCall.count({ where: { sessionId: 'cursor' } })).toBe(0);
});
