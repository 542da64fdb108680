// The pending note an external session's agent gets with each of its reads (list_sessions, read_session,
// relay_info), against a real PostgreSQL: read in the read's own statement, the same note as the one read alone;
// and read_session's messages, read in that statement too.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PgSessionReads } from '../src/adapters/store/pg-session-reads.ts';
import { toMessage } from '../src/adapters/store/prisma-session-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-03T10:00:00.000Z');
const SINCE = new Date(NOW.getTime() - 3_600_000);
/** A page that holds every session here. */
const ALL = { limit: 100, offset: 0 };
/** What waits for the agent: two of its four messages (a user's line and one it read are not pending). */
const NOTE = { count: 2, previews: ['[relay event] session "Worker": turn_end (done)', '[relay schedule sch_1 "Check"]'] };

let database: TestDatabase;
let pool: pg.Pool;
let prisma: PrismaClient;
let reads: PgSessionReads;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  pool = new pg.Pool({ connectionString: database.url });
  prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  reads = new PgSessionReads(pool);
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
  const session = { userId: 'u1', model: '', state: 'idle' as const, cwd: '', createdAt: NOW, lastActivityAt: NOW };
  await prisma.session.createMany({
    data: [
      { ...session, id: 'agent', title: 'My editor', provider: 'external', origin: 'external' },
      { ...session, id: 'other', title: 'Another editor', provider: 'external', origin: 'external' },
      { ...session, id: 'hosted', title: 'Worker', provider: 'script', origin: 'hosted' },
      { ...session, id: 'shelved', title: 'Old', provider: 'script', origin: 'hosted', archived: true },
    ],
  });
  const message = { sessionId: 'agent', model: '', createdAt: NOW };
  await prisma.message.createMany({
    data: [
      { ...message, id: 'read', role: 'event', text: 'read already' },
      { ...message, id: 'mine', role: 'user', text: 'my own line' },
      { ...message, id: 'wake', role: 'event', text: '[relay event · automated message]\n[relay event] session "Worker": turn_end (done)' },
      {
        ...message,
        id: 'fire',
        role: 'schedule',
        text: '[relay schedule sch_1 "Check"]\nCheck the build.',
        provenance: { originRelay: 'desk', originSessionId: 'agent', originSessionTitle: 'My editor', model: '', hops: 0 },
        senderSessionId: 'agent',
        createdAt: new Date('2026-12-03T10:00:01.234Z'),
      },
      { ...message, sessionId: 'hosted', id: 'hosted-ev', role: 'event', text: '[relay event] not an inbox' },
    ],
  });
  const [read] = await prisma.message.findMany({ where: { id: 'read' } });
  await prisma.session.update({ where: { id: 'agent' }, data: { externalReadSeq: read!.seq } });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

/** What `read` answers, and how many statements it ran. */
async function counted<T>(read: () => Promise<T>): Promise<{ answer: T; statements: number }> {
  const query = vi.spyOn(pool, 'query');
  try {
    const answer = await read();
    return { answer, statements: query.mock.calls.length };
  } finally {
    query.mockRestore();
  }
}

it('reads the note alone as GetPendingMessages answers it', async () => {
  expect(await reads.pending('agent')).toEqual(NOTE);
});

it("lists the sessions with the agent's note in the listing's one statement", async () => {
  const { answer, statements } = await counted(() => reads.listSessions('u1', { archived: false }, ALL, SINCE, 'agent'));
  expect(answer.pending).toEqual(NOTE);
  expect(answer.sessions.map((session) => session.id).sort()).toEqual(['agent', 'hosted', 'other']);
  expect(statements).toBe(1);
  // The note rides on the agent's own row and leaves the session as listed without it.
  const { sessions } = await reads.listSessions('u1', { archived: false }, ALL, SINCE);
  expect(answer.sessions).toEqual(sessions);
});

it("reads the note apart, the same, when the listing does not hold the agent's own session", async () => {
  const { answer, statements } = await counted(() => reads.listSessions('u1', { archived: true }, ALL, SINCE, 'agent'));
  expect(answer.sessions.map((session) => session.id)).toEqual(['shelved']);
  expect(answer.pending).toEqual(NOTE);
  expect(statements).toBe(2);
});

it('reads a session, its last messages and the note of the agent reading it in one statement', async () => {
  const { answer, statements } = await counted(() => reads.readSession('hosted', 10, SINCE, 'agent'));
  expect(answer?.pending).toEqual(NOTE);
  expect(answer?.messages.map((message) => message.id)).toEqual(['hosted-ev']);
  expect(statements).toBe(1);
  expect((await reads.readSession('agent', 10, SINCE, 'agent'))?.pending).toEqual(NOTE);
  expect((await reads.readSession('hosted', 10, SINCE))?.pending).toBeUndefined();
});

it('reads the last messages, newest last, as Prisma reads them', async () => {
  const stored = (await prisma.message.findMany({ where: { sessionId: 'agent' }, orderBy: [{ createdAt: 'asc' }, { seq: 'asc' }] })).map(toMessage);
  // Each with its delivery besides (message-delivery.int.test.ts).
  expect((await reads.readSession('agent', 10, SINCE))?.messages).toMatchObject(stored);
  const lastTwo = (await reads.readSession('agent', 2, SINCE))?.messages;
  expect(lastTwo).toMatchObject(stored.slice(-2));
  expect(lastTwo?.[1]?.createdAt).toEqual(new Date('2026-12-03T10:00:01.234Z'));
});

it("answers relay_info's folders and groups with the note in one statement", async () => {
  const { answer, statements } = await counted(() => reads.relayInfo('u1', 10, 'agent'));
  expect(answer).toEqual({ recentCwds: [], groups: [], pending: NOTE });
  expect(statements).toBe(1);
  expect((await reads.relayInfo('u1', 10)).pending).toBeUndefined();
});

it('answers no note for a session that is not external or not there, and the read whole', async () => {
  for (const pendingFor of ['hosted', 'nope']) {
    const listed = await reads.listSessions('u1', { archived: false }, ALL, SINCE, pendingFor);
    expect(listed.pending).toBeUndefined();
    expect(listed.sessions).toHaveLength(3);
    const read = await reads.readSession('agent', 10, SINCE, pendingFor);
    expect(read?.pending).toBeUndefined();
    expect(read?.messages).toHaveLength(4);
    expect((await reads.relayInfo('u1', 10, pendingFor)).pending).toBeUndefined();
  }
});
