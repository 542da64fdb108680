/**
 * A Claude usage-limit pause holds turns relay-wide: replica A's turn hits the limit and records the pause in
 * PostgreSQL (the usage ledger); replica B, a runner with its own plug-ins that never saw the limit, leaves the
 * queued claude turn waiting (not failed) while it runs other providers' turns, and starts it once relay time
 * passes the reset. Real PostgreSQL, real runner and stores; the provider is a fake of our own port. Relay time is
 * a ManualClock moved by hand.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import type { ProviderInfo } from '../../src/domain/catalogue/provider-catalogue.ts';
import { getUsage } from '../../src/app/usage/get-usage.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { ALWAYS_AVAILABLE, TurnFailed, type Provider } from '../../src/app/turns/provider.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import { SessionWorkers } from '../../src/app/turns/session-workers.ts';
import { TurnRunner } from '../../src/app/turns/turn-runner.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { PrismaTurnStore } from '../../src/adapters/store/prisma-turn-store.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { queueTurn, untilTurnStatus } from '../turns/queue-turn.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'usage-pause-test', level: 'silent' });
const clock = new ManualClock('2026-11-30T10:00:00.000Z');
const RESET = new Date('2026-11-30T15:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let turns: PrismaTurnStore;
let ledger: PrismaUsageLedger;
let runners: TurnRunner[] = [];
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  turns = new PrismaTurnStore(prisma, API_MESSAGES);
  ledger = new PrismaUsageLedger(prisma);
  userId = randomUUID();
  await prisma.user.create({ data: { id: userId, name: 'Ada', createdAt: clock.now() } });
});

afterEach(async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
  runners = [];
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
});

/**
 * Claude as a replica's plug-in sees it: a prompt "hit the limit" meets a rejected rate limit, which the plug-in
 * records as a pause (as ClaudeProvider does on rate_limit_event) before the turn fails; any other prompt is answered.
 */
function limitedClaude(): Provider {
  return {
    id: 'claude',
    availability: () => ALWAYS_AVAILABLE,
    listModels: async () => ['claude-opus-5-5'],
    canSteer: false,
    async startTurn(input) {
      if (input.message.text === 'hit the limit') {
        await ledger.pause({ provider: 'claude', until: RESET, reason: `a Claude usage limit holds turns until ${RESET.toISOString()}` });
        throw new TurnFailed('Claude Code: usage limit reached');
      }
      return { text: `claude: ${input.message.text}`, model: 'claude-opus-5-5' };
    },
  };
}

/** Another provider, which no Claude limit holds. */
const echo: Provider = {
  id: 'echo',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['echo-1'],
  canSteer: false,
  startTurn: async (input) => ({ text: `echo: ${input.message.text}`, model: 'echo-1' }),
};

/** One replica's runner, wired as main.ts wires it: its own registry and plug-ins, the shared database and clock. */
function startReplica(): TurnRunner {
  const runner = new TurnRunner({
    store: turns,
    ids: nodeCrypto,
    providers: new ProviderRegistry([limitedClaude(), echo]),
    // Its providers raise no card.
    cards: { cancel: async () => undefined },
    workers: new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock, logger }),
    signals: new TurnSignals(),
    clock,
    logger,
    maxTurnMinutes: async () => 600,
    pauses: ledger,
    pollIntervalMs: 20,
    inFlightIntervalMs: 0,
  });
  runners.push(runner);
  runner.start();
  return runner;
}

async function newSession(provider: string): Promise<string> {
  const id = randomUUID();
  await prisma.session.create({
    data: {
      id,
      userId,
      title: provider,
      provider,
      model: `${provider}-1`,
      origin: 'hosted',
      state: 'idle',
      cwd: '/tmp',
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
    },
  });
  return id;
}

let queuedCount = 0;

/** Queues a message as SendMessage does, the session running; returns the turn id. */
const queue = (sessionId: string, text: string): Promise<string> =>
  queueTurn(prisma, sessionId, text, new Date(clock.now().getTime() + queuedCount++), { sessionRunning: true });

const untilStatus = (turnId: string, ...statuses: string[]) => untilTurnStatus(prisma, turnId, ...statuses);

const claudeInfo: ProviderInfo = {
  id: 'claude',
  name: 'Claude',
  family: 'claude',
  available: true,
  reason: '',
  reasonCode: '',
  defaultModel: 'claude-opus-5-5',
  models: ['claude-opus-5-5'],
  modelsKnown: true,
  efforts: [],
};
const usageNow = () => getUsage({ catalogue: { providers: async () => [claudeInfo] }, ledger, allowances: {}, priced: [] }, clock.now());

describe('a Claude usage-limit pause', () => {
  it('recorded by one replica holds the queued claude turns of another until the reset, which then runs them', async () => {
    // Replica A's turn meets the limit: it fails, and the pause is in PostgreSQL.
    const limited = await queue(await newSession('claude'), 'hit the limit');
    const replicaA = startReplica();
    expect(await untilStatus(limited, 'error')).toMatchObject({ error: 'Claude Code: usage limit reached' });
    await replicaA.stop();

    // Replica B never saw the limit itself. Its claude turn, queued first, is passed over, not failed, while an
    // echo turn queued after it runs.
    const waiting = await queue(await newSession('claude'), 'after the reset');
    const other = await queue(await newSession('echo'), 'meanwhile');
    const replicaB = startReplica();
    expect(await untilStatus(other, 'done')).toMatchObject({ replyText: 'echo: meanwhile', runnerId: replicaB.runnerId });
    expect(await prisma.turn.findUniqueOrThrow({ where: { id: waiting } })).toMatchObject({ status: 'queued', error: '', runnerId: null });

    // usage says so.
    const paused = (await usageNow()).providers.find((p) => p.provider === 'claude');
    expect(paused).toMatchObject({ status: 'paused', pausedUntil: RESET, reason: 'a Claude usage limit holds turns until 2026-11-30T15:00:00.000Z' });

    // A minute before the reset it still waits (another echo turn is the witness of B's next look).
    clock.set(new Date(RESET.getTime() - 60_000));
    const witness = await queue(await newSession('echo'), 'still waiting?');
    await untilStatus(witness, 'done');
    expect((await prisma.turn.findUniqueOrThrow({ where: { id: waiting } })).status).toBe('queued');

    // Relay time reaches the reset: B starts the held turn.
    clock.set(RESET);
    expect(await untilStatus(waiting, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'claude: after the reset', runnerId: replicaB.runnerId });
    const after = (await usageNow()).providers.find((p) => p.provider === 'claude');
    expect(after).toMatchObject({ status: 'ok', pausedUntil: null });
  });
});
