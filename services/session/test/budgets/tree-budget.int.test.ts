/**
 * A budget over a delegation tree, through the real turn runner and PostgreSQL (issue 45): a conversation, the three
 * sessions it started and the nine they started (1 → 3 → 9). The budget tells the owner at 80 %, holds the tree at
 * 100 % (the queued turn that must not run does not), stops a running turn once the tree is past by more than one
 * turn's worth, refuses a session past the session count, and runs again once the owner's card raises it; the tree's
 * usage equals the ledger's sum. The provider is a fake of our own port that records its turns in the real ledger;
 * the cards are a fake of our own BudgetCards port. Relay time is a ManualClock moved by hand.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import { PrismaBudgetStore } from '../../src/adapters/store/prisma-budget-store.ts';
import { PrismaSessionStore } from '../../src/adapters/store/prisma-session-store.ts';
import { PrismaTurnStore } from '../../src/adapters/store/prisma-turn-store.ts';
import { PrismaUsageLedger } from '../../src/adapters/store/prisma-usage-ledger.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { checkTreeBudget, narrowBudget, noteRemoteTreeSpend, refuseOverBudget } from '../../src/app/budgets/budget-gate.ts';
import { BudgetCheckedLedger } from '../../src/app/budgets/budget-checked-ledger.ts';
import { applyBudgetCard, checkRunOutMinutes, type BudgetDeps } from '../../src/app/budgets/check-budgets.ts';
import { getBudgetedRemoteSessions, getTreeUsage } from '../../src/app/budgets/get-tree-usage.ts';
import { setBudget } from '../../src/app/budgets/set-budget.ts';
import { ALWAYS_AVAILABLE, type Provider } from '../../src/app/turns/provider.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import { SessionWorkers } from '../../src/app/turns/session-workers.ts';
import { TurnRunner } from '../../src/app/turns/turn-runner.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { recordTurnUsage } from '../../src/app/usage/record-turn-usage.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { queueTurn, untilTurnStatus } from '../turns/queue-turn.ts';
import { until } from '../until.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'tree-budget-test', level: 'silent' });
const clock = new ManualClock('2026-12-07T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let turns: PrismaTurnStore;
/** The ledger as main.ts gives it to the plug-ins: each record checks the budgets over its turn's tree. */
let ledger: BudgetCheckedLedger;
let runner: TurnRunner;
let deps: BudgetDeps;
let userId: string;

/** The cards the owner was shown, in order. */
const raised: { id: string; sessionId: string; title: string; key: string }[] = [];
/** The prompts the provider was called with: a turn that must not run never shows here. */
const started: string[] = [];
/** Turns the test lets end (a prompt "hold N" records US$N when released). */
const held = new Map<string, () => void>();

/** Waits until the test releases `name` (held), or the turn is stopped. */
function release(name: string, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    held.set(name, resolve);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * The fake provider: "cost N" records US$N and 100 tokens and replies; "hold N" waits until the test releases it,
 * then records US$N; "block" runs until it is stopped and records nothing; "drip A,B,…" records US$A, then US$B, …
 * so far, as a provider that records as it goes (openai after each answer), waiting for the test after each.
 */
const metered: Provider = {
  id: 'metered',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['metered-1'],
  canSteer: false,
  async startTurn(input) {
    const text = input.message.text;
    started.push(text);
    const [verb, amount] = text.split(' ');
    if (verb === 'drip') {
      for (const soFar of amount!.split(',')) {
        await recordTurnUsage(ledger, 'metered', input, { inputTokens: 60, outputTokens: 40, costUsd: Number(soFar) });
        await release(`drip ${soFar}`, input.signal);
      }
    }
    if (verb === 'block' || verb === 'hold') await release(text, input.signal);
    if (verb === 'cost' || verb === 'hold') {
      await recordTurnUsage(ledger, 'metered', input, { inputTokens: 60, outputTokens: 40, costUsd: Number(amount) });
    }
    return { text: `done: ${text}`, model: 'metered-1' };
  },
};

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  turns = new PrismaTurnStore(prisma, API_MESSAGES);
  userId = randomUUID();
  await prisma.user.create({ data: { id: userId, name: 'Ada', createdAt: clock.now() } });
  const signals = new TurnSignals();
  deps = {
    budgets: new PrismaBudgetStore(prisma, 'desk'),
    cards: {
      raise: async (card) => {
        const id = `card-${raised.length + 1}`;
        raised.push({ id, sessionId: card.sessionId, title: card.title, key: card.key });
        return id;
      },
    },
    sessions: new PrismaSessionStore(prisma, API_MESSAGES),
    relay: { name: 'desk' },
    turnsMayRun: () => signals.work(),
    logger,
  };
  ledger = new BudgetCheckedLedger(new PrismaUsageLedger(prisma), deps);
  runner = new TurnRunner({
    store: turns,
    ids: nodeCrypto,
    providers: new ProviderRegistry([metered]),
    // Its providers raise no card.
    cards: { cancel: async () => undefined },
    workers: new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock, logger }),
    signals,
    clock,
    logger,
    maxTurnMinutes: async () => 600,
    budgets: { look: (now) => checkRunOutMinutes(deps, now) },
    pollIntervalMs: 20,
    inFlightIntervalMs: 0,
  });
  runner.start();
});

afterAll(async () => {
  await runner?.stop();
  await prisma?.$disconnect();
  await database?.drop();
});

async function newSession(title: string, startedBy: string | null): Promise<string> {
  const id = randomUUID();
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
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
      startedBySessionId: startedBy,
    },
  });
  return id;
}

/** A session whose first prompt came from the paired relay `originRelay` (its provenance), or from its person (null). */
async function startedFrom(title: string, originRelay: string | null): Promise<string> {
  const id = await newSession(title, null);
  const provenance =
    originRelay === null
      ? undefined
      : { originRelay, originSessionId: 'far-conversation', originSessionTitle: 'Far', model: 'm', hops: 1, viaRelays: [originRelay] };
  await prisma.message.create({ data: { id: randomUUID(), sessionId: id, role: 'user', text: 'first', createdAt: clock.now(), provenance } });
  return id;
}

let queuedCount = 0;

/** Queues a message as SendMessage does and nudges the runner; returns the turn id. */
async function queue(sessionId: string, text: string): Promise<string> {
  const turnId = await queueTurn(prisma, sessionId, text, new Date(clock.now().getTime() + queuedCount++));
  runner.kick();
  return turnId;
}

const untilStatus = (turnId: string, ...statuses: string[]) => untilTurnStatus(prisma, turnId, ...statuses);

/** The ledger's own sum over the given sessions, straight from turn_usage. */
async function ledgerSum(sessionIds: string[]) {
  const rows = await prisma.turnUsage.findMany({ where: { sessionId: { in: sessionIds } } });
  return {
    turns: rows.length,
    inputTokens: rows.reduce((sum, row) => sum + row.inputTokens, 0),
    outputTokens: rows.reduce((sum, row) => sum + row.outputTokens, 0),
    costUsd: Math.round(rows.reduce((sum, row) => sum + (row.costUsd ?? 0), 0) * 1e6) / 1e6,
  };
}

describe('a budget over a tree of 1 → 3 → 9 sessions', () => {
  it('tells the owner at 80 %, holds the tree at 100 %, stops a turn past one turn’s worth, and runs again once raised', async () => {
    const root = await newSession('root', null);
    const children = [await newSession('c1', root), await newSession('c2', root), await newSession('c3', root)];
    const grandchildren: string[] = [];
    for (const child of children) for (let i = 0; i < 3; i++) grandchildren.push(await newSession(`g${grandchildren.length + 1}`, child));
    const tree = [root, ...children, ...grandchildren];
    const outsider = await newSession('outside the tree', null);

    const set = await setBudget(
      deps,
      { userId, sessionId: root, limits: { costUsd: 5, tokens: null, minutes: null, sessions: 12 }, setBy: 'person' },
      clock.now(),
    );
    expect(set.budgets).toMatchObject([
      {
        budget: { sessionId: root, state: 'active' },
        level: 'warn',
        meters: [
          { name: 'cost_usd', used: 0 },
          { name: 'sessions', used: 12, limit: 12 },
        ],
      },
    ]);
    // All twelve sessions are started: the thirteenth is refused at 100 % of the sessions meter, and the owner's card
    // raises the count.
    raised.length = 0;
    await expect(
      refuseOverBudget(deps, { sessionId: grandchildren[0]!, startsSession: true, nothingDone: 'Nothing was created.' }, clock.now()),
    ).rejects.toMatchObject({
      code: 'REMOTE_RELAY_BUDGET_REACHED',
    });
    expect(raised).toMatchObject([{ sessionId: root, title: 'Budget reached for "root": no new turn starts in its tree' }]);
    await applyBudgetCard(deps, { id: raised[0]!.id, status: 'allowed' }, clock.now());
    expect((await deps.budgets.find(root))?.limits).toMatchObject({ costUsd: 5, sessions: 24 });
    await refuseOverBudget(deps, { sessionId: grandchildren[0]!, startsSession: true, nothingDone: 'Nothing was created.' }, clock.now());
    raised.length = 0;

    // US$4 of US$5: the owner is told, once.
    for (const session of [root, ...children]) await untilStatus(await queue(session, 'cost 1'), 'done');
    await until(() => raised.length === 1, 'the 80 % card');
    expect(raised[0]).toMatchObject({ sessionId: root, title: 'Budget 80 % used for "root"' });

    // Two turns run on (one held by the test, one that runs until stopped); a third pushes the tree to US$5.50.
    const blocked = await queue(grandchildren[2]!, 'block');
    const holding = await queue(grandchildren[4]!, 'hold 2');
    await until(() => held.has('block') && held.has('hold 2'), 'both long turns to run');
    await untilStatus(await queue(grandchildren[0]!, 'cost 1.5'), 'done');
    await until(async () => (await deps.budgets.find(root))?.state === 'reached', 'the budget to be reached');
    expect(raised.at(-1)).toMatchObject({ sessionId: root, title: 'Budget reached for "root": no new turn starts in its tree' });

    // At 100 % no new turn starts anywhere in the tree: a grandchild's queued turn waits while one outside runs.
    const refused = await queue(grandchildren[1]!, 'cost 1 after the hold');
    await untilStatus(await queue(outsider, 'cost 0.01'), 'done');
    expect((await prisma.turn.findUniqueOrThrow({ where: { id: refused } })).status).toBe('queued');
    expect(started).not.toContain('cost 1 after the hold');
    // US$5.50 is within one turn's worth (US$1.50) of US$5: the running turns go on.
    expect((await prisma.turn.findUniqueOrThrow({ where: { id: blocked } })).status).toBe('running');

    // The held turn ends at US$2: US$7.50 is past US$5 by more than the largest turn (US$2): the other is stopped.
    held.get('hold 2')!();
    await untilStatus(holding, 'done');
    expect(await untilStatus(blocked, 'stopped', 'done', 'error')).toMatchObject({ status: 'stopped' });

    // The tree's usage, split by session and provider, is the ledger's sum exactly (the outsider not in it).
    const usage = await getTreeUsage(deps, { userId, sessionId: root }, clock.now());
    expect(usage.totals).toEqual(await ledgerSum(tree));
    expect(usage.totals.costUsd).toBe(7.5);
    expect(usage.rows.map((row) => row.sessionId).sort()).toEqual([root, ...children, grandchildren[0]!, grandchildren[4]!].sort());
    expect(usage.rows.every((row) => row.relay === 'desk' && row.provider === 'metered')).toBe(true);
    expect(usage.sessionsStarted).toBe(12);
    // A session's own tree: a child's is itself and its three.
    const childUsage = await getTreeUsage(deps, { userId, sessionId: children[1]! }, clock.now());
    expect(childUsage.totals).toEqual(await ledgerSum([children[1]!, ...grandchildren.slice(3, 6)]));

    // The owner allows on the card: US$7.50 + US$5 = US$12.50, and the held turn runs.
    const reachedCard = raised.at(-1)!;
    await applyBudgetCard(deps, { id: reachedCard.id, status: 'allowed' }, clock.now());
    expect(await deps.budgets.find(root)).toMatchObject({ state: 'active', limits: { costUsd: 12.5 }, cardId: null });
    expect(await untilStatus(refused, 'done')).toMatchObject({ replyText: 'done: cost 1 after the hold' });
    // The decision, delivered again, changes nothing.
    await applyBudgetCard(deps, { id: reachedCard.id, status: 'allowed' }, clock.now());
    expect((await deps.budgets.find(root))?.limits.costUsd).toBe(12.5);
  });

  it('narrows for a sub-tree, holds it when its minutes run out, and ends it on the owner’s Deny', async () => {
    const root = await newSession('minutes root', null);
    const child = await newSession('minutes child', root);
    const grandchild = await newSession('minutes grandchild', child);
    await setBudget(deps, { userId, sessionId: child, limits: { costUsd: null, tokens: null, minutes: 30, sessions: null }, setBy: 'agent' }, clock.now());
    // An agent's second narrowing cannot widen it.
    await setBudget(deps, { userId, sessionId: child, limits: { costUsd: null, tokens: null, minutes: 90, sessions: 1 }, setBy: 'agent' }, clock.now());
    expect((await deps.budgets.find(child))?.limits).toEqual({ costUsd: null, tokens: null, minutes: 30, sessions: 1 });

    clock.advance(30 * 60_000);
    await until(async () => (await deps.budgets.find(child))?.state === 'reached', 'the minutes to run out');
    const waiting = await queue(grandchild, 'cost 0.1 late');
    await untilStatus(await queue(root, 'cost 0.1 above'), 'done');
    expect((await prisma.turn.findUniqueOrThrow({ where: { id: waiting } })).status).toBe('queued');

    // Deny ends the budget: the sub-tree stays held, and a call into it is refused before anything is queued.
    await applyBudgetCard(deps, { id: raised.at(-1)!.id, status: 'denied' }, clock.now());
    expect((await deps.budgets.find(child))?.state).toBe('ended');
    await expect(refuseOverBudget(deps, { sessionId: grandchild, startsSession: false, nothingDone: 'Nothing was sent.' }, clock.now())).rejects.toMatchObject({
      code: 'REMOTE_RELAY_BUDGET_REACHED',
    });
    // The person sets it again: the tree runs.
    await setBudget(deps, { userId, sessionId: child, limits: { costUsd: 1, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    expect(await untilStatus(waiting, 'done')).toMatchObject({ replyText: 'done: cost 0.1 late' });
  });

  it('carries what is left to a paired relay, and counts what that relay reports back', async () => {
    const root = await newSession('across relays', null);
    await setBudget(deps, { userId, sessionId: root, limits: { costUsd: 3, tokens: null, minutes: null, sessions: 4 }, setBy: 'person' }, clock.now());
    // The conversation's agent started a session on build-box (as NoteRemoteSessionStarted records it).
    await prisma.conversationGrant.create({ data: { sessionId: root, kind: 'started_remote', relay: 'build-box/far-1', createdAt: clock.now() } });
    expect(await checkTreeBudget(deps, { userId, sessionId: root, startsSession: true }, clock.now())).toEqual({
      costUsd: 3,
      tokens: null,
      minutes: null,
      sessions: 3,
    });

    // build-box reports what far-1's tree spent there: US$2.60 and one session it started.
    const report = { userId, sessionId: root, relay: 'build-box', remoteSessionId: 'far-1', sessionsStarted: 1 };
    const farRow = { sessionId: 'far-1', provider: 'openai', turns: 2, inputTokens: 100, outputTokens: 50, costUsd: 2.6 };
    raised.length = 0;
    await noteRemoteTreeSpend(deps, { ...report, rows: [farRow] }, clock.now());
    const usage = await getTreeUsage(deps, { userId, sessionId: root }, clock.now());
    expect(usage.rows).toEqual([{ ...farRow, relay: 'build-box', largestTurnCostUsd: 0, largestTurnTokens: 0 }]);
    expect(usage.sessionsStarted).toBe(2);
    expect(raised).toMatchObject([{ sessionId: root, title: 'Budget 80 % used for "across relays"' }]);
    expect(await checkTreeBudget(deps, { userId, sessionId: root, startsSession: true }, clock.now())).toEqual({
      costUsd: 0.4,
      tokens: null,
      minutes: null,
      sessions: 2,
    });

    // A report about a session this conversation did not start counts nothing.
    await noteRemoteTreeSpend(deps, { ...report, remoteSessionId: 'not-ours', rows: [{ ...farRow, sessionId: 'not-ours', costUsd: 50 }] }, clock.now());
    expect((await getTreeUsage(deps, { userId, sessionId: root }, clock.now())).totals.costUsd).toBe(2.6);

    // The next report replaces it: US$3.10 reaches the budget, and the next prompt to a paired relay is refused here.
    await noteRemoteTreeSpend(deps, { ...report, rows: [{ ...farRow, costUsd: 3.1 }] }, clock.now());
    expect((await deps.budgets.find(root))?.state).toBe('reached');
    await expect(checkTreeBudget(deps, { userId, sessionId: root, startsSession: false }, clock.now())).rejects.toMatchObject({
      code: 'REMOTE_RELAY_BUDGET_REACHED',
    });
  });

  it('names the sessions the tree started on paired relays, and keeps a report only over an older one', async () => {
    const root = await newSession('reported', null);
    const child = await newSession('reported child', root);
    await setBudget(deps, { userId, sessionId: root, limits: { costUsd: 10, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    for (const [sessionId, relay] of [
      [root, 'build-box/far-a'],
      [child, 'lab/far-b'],
    ] as const) {
      await prisma.conversationGrant.create({ data: { sessionId, kind: 'started_remote', relay, createdAt: clock.now() } });
    }
    expect((await getTreeUsage(deps, { userId, sessionId: root }, clock.now())).remoteSessions).toEqual([
      { startedBySessionId: root, relay: 'build-box', sessionId: 'far-a' },
      { startedBySessionId: child, relay: 'lab', sessionId: 'far-b' },
    ]);
    expect((await getTreeUsage(deps, { userId, sessionId: child }, clock.now())).remoteSessions).toEqual([
      { startedBySessionId: child, relay: 'lab', sessionId: 'far-b' },
    ]);

    // A fetch and a call's result read build-box at about the same time; the one read later (more spent) arrives first.
    const report = { userId, sessionId: root, relay: 'build-box', remoteSessionId: 'far-a', sessionsStarted: 1 };
    const row = { sessionId: 'far-a', provider: 'openai', turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 };
    await noteRemoteTreeSpend(deps, { ...report, rows: [row] }, clock.now());
    await noteRemoteTreeSpend(deps, { ...report, sessionsStarted: 0, rows: [{ ...row, turns: 2, inputTokens: 200, costUsd: 2 }] }, clock.now());
    expect((await getTreeUsage(deps, { userId, sessionId: root }, clock.now())).totals).toEqual({ turns: 3, inputTokens: 300, outputTokens: 0, costUsd: 3 });
    // A later one replaces it.
    await noteRemoteTreeSpend(deps, { ...report, sessionsStarted: 2, rows: [row, { ...row, sessionId: 'far-c', costUsd: 1.5 }] }, clock.now());
    const usage = await getTreeUsage(deps, { userId, sessionId: root }, clock.now());
    expect(usage.totals).toEqual({ turns: 6, inputTokens: 600, outputTokens: 0, costUsd: 4.5 });
    expect(usage.sessionsStarted).toBe(1 + 2 + 2);
  });

  it('names the paired relays’ sessions to ask only under a budget: the outermost one’s tree, none without one', async () => {
    const root = await newSession('budgeted later', null);
    const child = await newSession('budgeted later child', root);
    for (const [sessionId, relay] of [
      [root, 'build-box/far-x'],
      [child, 'lab/far-y'],
    ] as const) {
      await prisma.conversationGrant.create({ data: { sessionId, kind: 'started_remote', relay, createdAt: clock.now() } });
    }
    expect(await getBudgetedRemoteSessions(deps, { userId, sessionId: child })).toEqual([]);
    expect((await getTreeUsage(deps, { userId, sessionId: child, budgetsOnly: true }, clock.now())).budgets).toEqual([]);
    await setBudget(deps, { userId, sessionId: child, limits: { costUsd: 5, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    expect(await getBudgetedRemoteSessions(deps, { userId, sessionId: child })).toEqual([{ startedBySessionId: child, relay: 'lab', sessionId: 'far-y' }]);
    await setBudget(deps, { userId, sessionId: root, limits: { costUsd: 9, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    expect(await getBudgetedRemoteSessions(deps, { userId, sessionId: child })).toEqual([
      { startedBySessionId: root, relay: 'build-box', sessionId: 'far-x' },
      { startedBySessionId: child, relay: 'lab', sessionId: 'far-y' },
    ]);
    // What a result's budget note reads: the same budgets, measured, and nothing of the tree's own rows.
    const whole = await getTreeUsage(deps, { userId, sessionId: child }, clock.now());
    const budgetsOnly = await getTreeUsage(deps, { userId, sessionId: child, budgetsOnly: true }, clock.now());
    expect(budgetsOnly.budgets.map((report) => report.budget.sessionId)).toEqual([child, root]);
    expect(budgetsOnly).toMatchObject({ budgets: whole.budgets, rows: [], remoteSessions: [] });
    await expect(getBudgetedRemoteSessions(deps, { userId: 'someone-else', sessionId: child })).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
  });

  it('reads a tree for a paired relay only under a session that relay’s agents started here', async () => {
    const byHub = await startedFrom('read by hub', 'hub');
    expect((await getTreeUsage(deps, { userId, sessionId: byHub, startedByRelay: 'hub' }, clock.now())).sessionId).toBe(byHub);
    for (const other of [await startedFrom('the person’s, read by hub', null), await startedFrom('lab’s, read by hub', 'lab')]) {
      await expect(getTreeUsage(deps, { userId, sessionId: other, startedByRelay: 'hub' }, clock.now())).rejects.toMatchObject({
        code: 'REMOTE_RELAY_NOT_FOUND',
      });
    }
    await expect(getTreeUsage(deps, { userId: 'someone-else', sessionId: byHub, startedByRelay: 'hub' }, clock.now())).rejects.toMatchObject({
      code: 'REMOTE_RELAY_NOT_FOUND',
    });
  });

  it('narrows, with a paired relay’s budget, only a session that relay’s agents started here', async () => {
    const byDesk = await startedFrom('started by hub', 'hub');
    const byPerson = await startedFrom('the person’s own', null);
    const byAnother = await startedFrom('started by lab', 'lab');
    const limits = { costUsd: 2, tokens: null, minutes: null, sessions: 1 };
    const carried = (sessionId: string, pairedRelay: string) =>
      narrowBudget(deps, { userId, sessionId, startedBySessionId: null, callerSessionId: '', pairedRelay, limits, dryRun: false }, clock.now());
    for (const sessionId of [byDesk, byPerson, byAnother]) await carried(sessionId, 'hub');
    expect(await deps.budgets.find(byDesk)).toMatchObject({ setBy: 'relay', limits });
    // hub's prompt to a session it did not start leaves that session's budget as it is (here: none).
    expect(await deps.budgets.find(byPerson)).toBeUndefined();
    expect(await deps.budgets.find(byAnother)).toBeUndefined();
    await setBudget(deps, { userId, sessionId: byPerson, limits: { costUsd: 50, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    await carried(byPerson, 'hub');
    expect((await deps.budgets.find(byPerson))?.limits).toEqual({ costUsd: 50, tokens: null, minutes: null, sessions: null });
  });

  it('stops a turn that records as it goes once the tree is past the budget by more than one finished turn', async () => {
    const root = await newSession('dripping', null);
    await setBudget(deps, { userId, sessionId: root, limits: { costUsd: 3, tokens: null, minutes: null, sessions: null }, setBy: 'person' }, clock.now());
    await untilStatus(await queue(root, 'cost 1'), 'done');
    const dripping = await queue(root, 'drip 1,2,3.5');
    await until(() => held.has('drip 1'), 'the turn to record US$1');
    held.get('drip 1')!();
    // US$3 in the tree: its record reaches the budget, but within one finished turn (US$1) of US$3 the turn runs on.
    await until(() => held.has('drip 2'), 'the turn to record US$2');
    expect((await deps.budgets.find(root))?.state).toBe('reached');
    expect((await prisma.turn.findUniqueOrThrow({ where: { id: dripping } })).status).toBe('running');
    held.get('drip 2')!();
    await until(() => held.has('drip 3.5'), 'the turn to record US$3.50');
    // US$4.50 is past US$3 + US$1: its record stops it while it still runs.
    expect(await untilStatus(dripping, 'stopped', 'done', 'error')).toMatchObject({ status: 'stopped' });
    expect((await getTreeUsage(deps, { userId, sessionId: root }, clock.now())).totals.costUsd).toBe(4.5);
  });
});
