/**
 * A budget's hold across two session-service replicas, over a real nats-server and PostgreSQL (issue 45, item 3):
 * replica A takes the hold (the usage it records reaches the budget) and the owner's Allow; replica B runs the tree's
 * turns and never polls (its poll interval is an hour), so only what A publishes on NATS (budget_changed) and what
 * every claim reads in PostgreSQL can reach it. A turn queued on B right after the hold does not start; the turn B
 * runs stops as soon as A finds the tree past the budget by more than one turn's worth; the Allow lets the held turn
 * start on B. Relay time is a ManualClock; nothing waits on wall-clock time.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus, type Bus } from '@relay/bus';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, startNats, type NatsServer, type TestDatabase } from '@relay/testing';
import { listenForTurnSignals, publishBudgetChanged } from '../../src/adapters/bus/bus-turn-signals.ts';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { PrismaBudgetStore } from '../../src/adapters/store/prisma-budget-store.ts';
import { PrismaSessionStore } from '../../src/adapters/store/prisma-session-store.ts';
import { PrismaTurnStore } from '../../src/adapters/store/prisma-turn-store.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { BudgetCheckedLedger } from '../../src/app/budgets/budget-checked-ledger.ts';
import { applyBudgetCard, type BudgetDeps } from '../../src/app/budgets/check-budgets.ts';
import { setBudget } from '../../src/app/budgets/set-budget.ts';
import { ALWAYS_AVAILABLE, type Provider } from '../../src/app/turns/provider.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import { SessionWorkers } from '../../src/app/turns/session-workers.ts';
import { TurnRunner } from '../../src/app/turns/turn-runner.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { queueTurn, untilTurnStatus } from '../turns/queue-turn.ts';
import { until } from '../until.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'budget-replicas-test', level: 'silent' });
const clock = new ManualClock('2026-12-07T10:00:00.000Z');

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let buses: Bus[] = [];
let listening: { stop(): void } | undefined;
let runnerB: TurnRunner;
/** Replica A's budgets: its nudges reach the other replicas only through NATS. */
let depsA: BudgetDeps;
let ledgerA: BudgetCheckedLedger;
let userId: string;
const raised: string[] = [];
/** The prompts replica B's provider was called with: a turn that must not start never shows here. */
const started: string[] = [];

/** "block" runs until it is stopped; anything else replies at once. */
const blocking: Provider = {
  id: 'metered',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['metered-1'],
  canSteer: false,
  async startTurn(input) {
    started.push(input.message.text);
    if (input.message.text === 'block') {
      await new Promise<void>((_resolve, reject) => input.signal.addEventListener('abort', () => reject(input.signal.reason), { once: true }));
    }
    return { text: `done: ${input.message.text}`, model: 'metered-1' };
  },
};

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  buses = await Promise.all(['a', 'b'].map((name) => connectBus({ url: nats.url, name: `replica-${name}`, logger, ...nats.credentials('session') })));
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  userId = randomUUID();
  await prisma.user.create({ data: { id: userId, name: 'Ada', createdAt: clock.now() } });

  const signalsA = new TurnSignals();
  depsA = {
    budgets: new PrismaBudgetStore(prisma, 'desk'),
    cards: { raise: async () => `card-${raised.push('card')}` },
    sessions: new PrismaSessionStore(prisma, API_MESSAGES),
    relay: { name: 'desk' },
    // As main.ts wires it: this replica's runner, and every other replica's through NATS.
    turnsMayRun: () => {
      signalsA.work();
      publishBudgetChanged(buses[0]!);
    },
    logger,
  };
  ledgerA = new BudgetCheckedLedger(new PrismaUsageLedger(prisma), depsA);

  const signalsB = new TurnSignals();
  const turns = new PrismaTurnStore(prisma, API_MESSAGES);
  listening = listenForTurnSignals(buses[1]!, signalsB, logger);
  runnerB = new TurnRunner({
    store: turns,
    ids: nodeCrypto,
    providers: new ProviderRegistry([blocking]),
    // Its providers raise no card.
    cards: { cancel: async () => undefined },
    workers: new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock, logger }),
    signals: signalsB,
    clock,
    logger,
    maxTurnMinutes: async () => 600,
    // Replica B never polls in this test: it looks when nudged, or when one of its turns ends.
    pollIntervalMs: 3_600_000,
    inFlightIntervalMs: 0,
  });
  await Promise.all(buses.map((bus) => bus.nc.flush()));
  runnerB.start();
});

afterAll(async () => {
  await runnerB?.stop();
  listening?.stop();
  await Promise.all(buses.map((bus) => bus.close()));
  await prisma?.$disconnect();
  await Promise.all([database?.drop(), nats?.stop()]);
});

async function newSession(title: string, startedBy: string | null): Promise<string> {
  const id = randomUUID();
  const at = clock.now();
  await prisma.session.create({
    data: {
      id,
      userId,
      title,
      provider: 'metered',
      model: 'metered-1',
      origin: 'hosted',
      state: 'idle',
      cwd: '/tmp',
      createdAt: at,
      lastActivityAt: at,
      startedBySessionId: startedBy,
    },
  });
  return id;
}

let queued = 0;
/** Queues a message as SendMessage does and nudges replica B's runner (turn_queued, heard there); the turn's id. */
async function queueOnB(sessionId: string, text: string): Promise<string> {
  const turnId = await queueTurn(prisma, sessionId, text, new Date(clock.now().getTime() + queued++));
  runnerB.kick();
  return turnId;
}

/** A finished turn of the root's, metered on replica A. */
function recordOnA(sessionId: string, costUsd: number): Promise<void> {
  return ledgerA.record({
    messageId: randomUUID(),
    sessionId,
    provider: 'metered',
    model: 'metered-1',
    inputTokens: 60,
    outputTokens: 40,
    costUsd,
    recordedAt: clock.now(),
  });
}

it('holds, stops and lets go the tree’s turns on the other replica at once', async () => {
  const root = await newSession('root', null);
  const worker = await newSession('worker', root);
  const helper = await newSession('helper', root);
  const outsider = await newSession('outside the tree', null);
  await setBudget(depsA, { userId, sessionId: root, limits: { costUsd: 1, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());

  const blocked = await queueOnB(worker, 'block');
  await untilTurnStatus(prisma, blocked, 'running');

  // Replica A meters US$1.50: the tree is held. A turn queued on B right after does not start, while one outside runs.
  await recordOnA(root, 1.5);
  expect((await depsA.budgets.find(root))?.state).toBe('reached');
  const held = await queueOnB(helper, 'after the hold');
  await untilTurnStatus(prisma, await queueOnB(outsider, 'outside'), 'done');
  expect((await prisma.turn.findUniqueOrThrow({ where: { id: held } })).status).toBe('queued');
  expect(started).not.toContain('after the hold');
  // Within one turn's worth (US$1.50) of US$1, B's running turn goes on.
  expect((await prisma.turn.findUniqueOrThrow({ where: { id: blocked } })).status).toBe('running');

  // US$3 is past US$1 + US$1.50: A asks the tree's running turns to stop, and B stops its turn without polling.
  await recordOnA(root, 1.5);
  expect(await untilTurnStatus(prisma, blocked, 'stopped', 'done', 'error')).toMatchObject({ status: 'stopped' });
  expect((await prisma.turn.findUniqueOrThrow({ where: { id: held } })).status).toBe('queued');

  // The owner's Allow, applied on A: the held turn starts on B.
  const card = await until(async () => (await depsA.budgets.find(root))?.cardId?.startsWith('card-') && (await depsA.budgets.find(root))?.cardId, 'the card');
  await applyBudgetCard(depsA, { id: card!, status: 'allowed' }, clock.now());
  expect(await untilTurnStatus(prisma, held, 'done')).toMatchObject({ replyText: 'done: after the hold' });
});
