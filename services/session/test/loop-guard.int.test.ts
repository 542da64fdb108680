// The loop guard's store against a real PostgreSQL: counts per conversation, the grant, the reset by the user's
// own messages (and not by agents' prompts or events), and racing counts that never overshoot.
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { countAgentPrompt, grantAgentPrompts } from '../src/app/loop-guard/agent-prompts.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaLoopGuardStore } from '../src/adapters/store/prisma-loop-guard-store.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaLoopGuardStore;
let sessions = 0;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaLoopGuardStore(prisma);
  await prisma.user.create({ data: { id: 'u1', name: 'u', createdAt: NOW } });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

async function newSession(): Promise<string> {
  const id = `s${++sessions}`;
  await prisma.session.create({
    data: {
      id,
      userId: 'u1',
      title: id,
      provider: 'script',
      model: 'script-1',
      origin: 'hosted',
      state: 'idle',
      cwd: '/tmp',
      createdAt: NOW,
      lastActivityAt: NOW,
    },
  });
  return id;
}

async function message(sessionId: string, role: string, senderSessionId: string | null = null): Promise<void> {
  await prisma.message.create({ data: { id: `m${Math.random()}`, sessionId, role, text: 'x', senderSessionId, createdAt: NOW } });
}

const count = (sessionId: string, dryRun = false) => countAgentPrompt(store, { sessionId, dryRun }, NOW);

describe('the loop guard store', () => {
  it('counts 30 prompts, refuses the 31st, and grants 30 more on Allow', async () => {
    const id = await newSession();
    for (let i = 1; i <= 30; i++) expect((await count(id)).sent).toBe(i);
    expect(await count(id, true)).toEqual({ sent: 30, allowed: 30, usedUp: true });
    await expect(count(id)).rejects.toMatchObject({ code: 'REMOTE_RELAY_LOOP_GUARD' });
    expect(await grantAgentPrompts(store, id, NOW)).toEqual({ sent: 30, allowed: 60 });
    expect(await count(id)).toEqual({ sent: 31, allowed: 60, usedUp: false });
  });

  it("resets when the user writes; agents' prompts, events and schedules do not", async () => {
    const id = await newSession();
    const other = await newSession();
    for (let i = 0; i < 30; i++) await count(id);
    await message(id, 'agent', other);
    await message(id, 'event');
    await message(id, 'schedule');
    expect((await count(id, true)).usedUp).toBe(true);
    await message(id, 'user');
    expect(await count(id, true)).toEqual({ sent: 0, allowed: 30, usedUp: false });
    expect((await count(id)).sent).toBe(1);
  });

  it('never lets racing counts overshoot', async () => {
    const id = await newSession();
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => count(id)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(30);
    expect((await prisma.loopGuard.findUnique({ where: { sessionId: id } }))?.sent).toBe(30);
  });

  it('answers REMOTE_RELAY_NOT_FOUND for an unknown session and stores nothing', async () => {
    await expect(count('nope')).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect(await prisma.loopGuard.count({ where: { sessionId: 'nope' } })).toBe(0);
  });
});
