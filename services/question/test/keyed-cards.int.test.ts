import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { nodeIds } from '../src/adapters/crypto/node-ids.ts';
import { raiseCard } from '../src/app/raise-card.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { PrismaCardStore } from '../src/adapters/store/prisma-card-store.ts';
import { toCardDecided } from '../src/adapters/grpc/wire/card-wire.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const NOW = new Date('2026-12-02T04:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaCardStore;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaCardStore(prisma, toCardDecided);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

const keyed = (sessionId: string, callKey = 'fp-create') => ({
  userId: 'u1',
  sessionId,
  kind: 'approval',
  title: 'Start a session?',
  lines: [],
  options: [],
  callKey,
});

async function decide(cardId: string, status: 'allowed' | 'denied', at: Date): Promise<void> {
  const card = { ...(await store.find(cardId))!, status, decidedAt: at };
  await store.saveDecision(card, { eventId: `evt-${cardId}`, occurredAt: at, card });
}

describe('keyed cards in PostgreSQL', () => {
  it('gives the same call its pending card, then its decision once', async () => {
    const deps = { store, ids: nodeIds };
    const first = await raiseCard(deps, keyed('ext-1'), NOW);
    expect((await raiseCard(deps, keyed('ext-1'), NOW)).id).toBe(first.id);
    await decide(first.id, 'allowed', NOW);
    expect(await raiseCard(deps, keyed('ext-1'), NOW)).toMatchObject({ id: first.id, status: 'allowed', callKey: 'fp-create' });
    const next = await raiseCard(deps, keyed('ext-1'), NOW);
    expect(next).toMatchObject({ status: 'pending' });
    expect(next.id).not.toBe(first.id);
  });

  it('lets only one of two racing calls take a decision', async () => {
    const deps = { store, ids: nodeIds };
    const first = await raiseCard(deps, keyed('ext-2'), NOW);
    await decide(first.id, 'denied', NOW);
    const both = await Promise.all([raiseCard(deps, keyed('ext-2'), NOW), raiseCard(deps, keyed('ext-2'), NOW)]);
    expect(both.filter((card) => card.id === first.id)).toHaveLength(1);
  });

  it('does not hand out a decision markUsed already took', async () => {
    const deps = { store, ids: nodeIds };
    const first = await raiseCard(deps, keyed('ext-3'), NOW);
    await decide(first.id, 'allowed', NOW);
    await store.markUsed(first.id, NOW);
    expect((await raiseCard(deps, keyed('ext-3'), NOW)).id).not.toBe(first.id);
  });
});
