/**
 * The turn runtime against real PostgreSQL and NATS: the real runner, store and script provider,
 * Wait and StopTurn over real gRPC; the gateway's MCP endpoint and the question service are fakes
 * of our own ports. Nothing here measures wall-clock time: relay time is a ManualClock moved by hand.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, enqueue, ensureStream, OutboxRelay, type Bus } from '@relay/bus';
import { ManualClock, type Clock } from '@relay/clock';
import { AppError } from '@relay/errors';
import { CardKind, CardStatus, QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import { MessageDelivery, TurnStatus } from '@relay/proto/relay/session/v1/session';
import { SessionServiceClient, SessionServiceService, type WaitRequest, type WaitResponse } from '@relay/proto/relay/session/v1/session_service';
import { callStream, callUnary, createClient, startGrpcServer, type GrpcServer } from '@relay/rpc';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, makeTestCredentials, startNats, type NatsServer, type TestDatabase } from '@relay/testing';
import { BusStreams, SessionEvents } from '@relay/proto/relay/bus-contracts';
import { nodeCrypto } from '../../src/adapters/crypto/node-crypto.ts';
import { RELAY_STOPPED_ERROR } from '../../src/domain/turns/turn-rules.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { SESSION_CALLERS } from '../../src/adapters/grpc/session-callers.ts';
import { turnGrpc } from '../../src/adapters/grpc/turn-grpc.ts';
import { ALWAYS_AVAILABLE, type Provider, type ProviderEvent } from '../../src/app/turns/provider.ts';
import { ProviderRegistry } from '../../src/app/turns/provider-registry.ts';
import { ScriptProvider } from '../../src/adapters/providers/script/script-provider.ts';
import { listenForTurnSignals } from '../../src/adapters/bus/bus-turn-signals.ts';
import { GrpcQuestionCards } from '../../src/adapters/grpc/grpc-question-cards.ts';
import { SessionWorkers } from '../../src/app/turns/session-workers.ts';
import { TurnRunner } from '../../src/app/turns/turn-runner.ts';
import { TurnSignals } from '../../src/app/turns/turn-signals.ts';
import { PrismaSessionStore } from '../../src/adapters/store/prisma-session-store.ts';
import { PrismaTurnStore } from '../../src/adapters/store/prisma-turn-store.ts';
import { startFakeMcpGateway, type FakeMcpGateway } from './fake-mcp-gateway.ts';
import { startFakeQuestionService, type FakeQuestionService } from './fake-question-service.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { toSessionMessage } from '../../src/adapters/grpc/wire/session-wire.ts';
import { PgSessionReads } from '../../src/adapters/store/pg-session-reads.ts';
import { listSessions } from '../../src/app/sessions/list-sessions.ts';
import { until } from '../until.ts';

const credentials = makeTestCredentials();
const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'turn-runtime-test', level: 'silent' });
const clock = new ManualClock('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let nats: NatsServer;
let prisma: PrismaClient;
let readsPool: pg.Pool;
let reads: PgSessionReads;
let turns: PrismaTurnStore;
let bus: Bus;
let outbox: OutboxRelay;
let listening: { stop(): void };
let gateway: FakeMcpGateway;
let questionService: FakeQuestionService;
let questionClient: QuestionServiceClient;
let server: GrpcServer;
let client: SessionServiceClient;
const signals = new TurnSignals();
let maxTurnMinutes = 60;
let runners: TurnRunner[] = [];
let userId: string;

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase({ migrationsDir }), startNats()]);
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  turns = new PrismaTurnStore(prisma, API_MESSAGES);
  readsPool = new pg.Pool({ connectionString: database.url });
  reads = new PgSessionReads(readsPool);
  bus = await connectBus({ url: nats.url, name: 'turn-runtime-test', logger, ...nats.credentials('session') });
  await ensureStream(bus, BusStreams.SESSION_EVENTS);
  outbox = new OutboxRelay({ db: prisma, bus, logger, pollIntervalMs: 20 });
  outbox.start();
  listening = listenForTurnSignals(bus, signals, logger);
  [gateway, questionService] = await Promise.all([startFakeMcpGateway(), startFakeQuestionService(logger, credentials)]);
  questionClient = createClient(QuestionServiceClient, questionService.address, credentials.auth('session'));
  server = await startGrpcServer({
    auth: credentials.auth('session'),
    port: 0,
    host: '127.0.0.1',
    logger,
    services: [
      {
        definition: SessionServiceService,
        callers: SESSION_CALLERS,
        implementation: turnGrpc({
          sessions: new PrismaSessionStore(prisma, API_MESSAGES),
          turns,
          signals,
          clock,
          logger,
          wait: { progressIntervalMs: 50, pollIntervalMs: 100 },
        }),
      },
    ],
  });
  client = createClient(SessionServiceClient, `127.0.0.1:${server.port}`, credentials.auth('gateway'));
  userId = await newUser();
});

afterEach(async () => {
  await Promise.all(runners.map((runner) => runner.stop()));
  runners = [];
  maxTurnMinutes = 60;
  gateway.answer = async (call) => ({ ok: true, action: call.args['action'], args: call.args });
});

afterAll(async () => {
  client?.close();
  questionClient?.close();
  await server?.shutdown();
  await Promise.all([gateway?.close(), questionService?.close()]);
  listening?.stop();
  await outbox?.stop();
  await prisma?.$disconnect();
  await readsPool?.end();
  await bus?.close();
  await Promise.all([nats?.stop(), database?.drop()]);
});

/** A provider that runs two sub-agents in each turn, as the claude provider reports them, then answers. */
const subagentProvider: Provider = {
  id: 'subagents',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['subagents-1'],
  canSteer: false,
  async startTurn(input) {
    await input.emit({ type: 'subagent_finished', description: 'Check web/ for XSS', status: 'completed', summary: 'No XSS found' });
    await input.emit({ type: 'subagent_finished', description: 'Run the e2e suite', status: 'failed', summary: '' });
    return { text: 'reviewed', model: 'subagents-1' };
  },
};

/**
 * A provider whose turn works for 2.5 minutes of relay time without a question, sub-agent or task: reply text and
 * tool calls, each after the given relay milliseconds (the shared ManualClock is moved as it goes).
 */
const WORK: [number, ProviderEvent][] = [
  [20_000, { type: 'text', delta: 'Reading the diff. ' }],
  [30_000, { type: 'tool_call', name: 'Read', input: { path: 'server/app.ts' } }],
  [15_000, { type: 'text', delta: 'Found it. ' }],
  [5_000, { type: 'tool_call', name: 'Edit', input: { path: 'server/app.ts' } }],
  [40_000, { type: 'text', delta: 'Fixed. ' }],
  [40_000, { type: 'tool_call', name: 'Bash', input: { command: 'npm test' } }],
];
/** A provider that saves no resume point: its turn says its message, then works until it is aborted. */
const plainProvider: Provider = {
  id: 'plain',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['plain-1'],
  canSteer: false,
  async startTurn(input) {
    await input.emit({ type: 'text', delta: input.message.text });
    await input.clock.sleep(3_600_000, input.signal);
    return { text: 'worked', model: 'plain-1' };
  },
};

/**
 * A provider that answers its agent's request for approval beside its turn, as Codex does: it raises a card, and its
 * turn, once stopped, ends at once while that request has not withdrawn the card yet (here: never).
 */
const approvingProvider: Provider = {
  id: 'approving',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['approving-1'],
  canSteer: false,
  async startTurn(input) {
    const cardId = await new GrpcQuestionCards(questionClient).raise({
      kind: 'approval',
      userId: input.session.userId,
      sessionId: input.session.id,
      title: 'Approving wants to run a command',
      lines: ['Command: touch never.txt'],
    });
    await input.emit({ type: 'question_raised', question: { id: cardId, kind: 'ask_user', question: 'Approving wants to run a command', options: [] } });
    await input.clock.sleep(3_600_000, input.signal);
    return { text: 'ran', model: 'approving-1' };
  },
};

const workingProvider: Provider = {
  id: 'working',
  availability: () => ALWAYS_AVAILABLE,
  listModels: async () => ['working-1'],
  canSteer: false,
  async startTurn(input) {
    for (const [afterMs, event] of WORK) {
      clock.advance(afterMs);
      await input.emit(event);
    }
    return { text: 'worked', model: 'working-1' };
  },
};

/** A runner wired as main.ts wires it, on `runnerClock` (the shared ManualClock unless given). */
function startRunner(options: { runnerClock?: Clock; leaseMs?: number } = {}): TurnRunner {
  const runnerClock = options.runnerClock ?? clock;
  const runner = new TurnRunner({
    store: turns,
    ids: nodeCrypto,
    providers: new ProviderRegistry([
      new ScriptProvider({ gatewayUrl: gateway.url, cards: new GrpcQuestionCards(questionClient), logger }),
      subagentProvider,
      workingProvider,
      plainProvider,
      approvingProvider,
    ]),
    cards: new GrpcQuestionCards(questionClient),
    workers: new SessionWorkers({ store: turns, secrets: nodeCrypto, hasher: nodeCrypto, clock: runnerClock, logger }),
    signals,
    clock: runnerClock,
    logger,
    maxTurnMinutes: async () => maxTurnMinutes,
    pollIntervalMs: 50,
    inFlightIntervalMs: 0,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  runners.push(runner);
  runner.start();
  return runner;
}

async function newUser(): Promise<string> {
  const id = randomUUID();
  await prisma.user.create({ data: { id, name: 'Ada', createdAt: clock.now() } });
  return id;
}

async function newSession(options: { provider?: string; owner?: string } = {}): Promise<string> {
  const id = randomUUID();
  await prisma.session.create({
    data: {
      id,
      userId: options.owner ?? userId,
      title: `Session ${id.slice(0, 4)}`,
      provider: options.provider ?? 'script',
      model: 'script-1',
      origin: 'hosted',
      state: 'running_turn',
      cwd: '/tmp',
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
    },
  });
  return id;
}

let queuedCount = 0;

/** Queues a message as SendMessage does: message, turn (queued) and turn_queued in one transaction. */
async function queue(sessionId: string, text: string, options: { stopRequested?: boolean } = {}): Promise<{ turnId: string; messageId: string }> {
  const turnId = randomUUID();
  const messageId = randomUUID();
  // Distinct queue times keep the order of turns queued within one relay-clock instant.
  const queuedAt = new Date(clock.now().getTime() + queuedCount++);
  await prisma.$transaction(async (tx) => {
    await tx.message.create({ data: { id: messageId, sessionId, role: 'user', text, createdAt: queuedAt } });
    await tx.turn.create({
      data: { id: turnId, sessionId, messageId, status: 'queued', mode: 'agent', queuedAt, stopRequested: options.stopRequested ?? false },
    });
    await tx.session.update({ where: { id: sessionId }, data: { state: 'running_turn' } });
    await enqueue(tx, SessionEvents.TURN_QUEUED, SessionEvents.TURN_QUEUED.codec.fromPartial({ sessionId, turnId, messageId }));
  });
  return { turnId, messageId };
}

async function turnRow(turnId: string) {
  return prisma.turn.findUniqueOrThrow({ where: { id: turnId } });
}

async function untilStatus(turnId: string, ...statuses: string[]) {
  return until(
    async () => {
      const row = await turnRow(turnId);
      return statuses.includes(row.status) ? row : undefined;
    },
    `turn ${turnId} is ${statuses.join(' or ')}`,
  );
}

/**
 * A running turn parked on its provider's timer, with `inFlight` written: a script's `wait` step has saved its end
 * (its resume point's `until`), after which it sleeps before anything else runs; a provider without resume points
 * sleeps right after its text.
 */
async function untilParked(turnId: string, inFlight: string) {
  return until(async () => {
    const row = await turnRow(turnId);
    const waiting = row.resumePoint === null || typeof (row.resumePoint as { until?: unknown }).until === 'string';
    return row.status === 'running' && row.inFlight === inFlight && waiting ? row : undefined;
  }, `turn ${turnId} waits with "${inFlight}" in flight`);
}

async function outboxEvents(subject: string, turnId: string): Promise<Record<string, unknown>[]> {
  const rows = await prisma.outboxMessage.findMany({ where: { subject }, orderBy: { createdAt: 'asc' } });
  return rows.map((row) => row.payload as Record<string, unknown>).filter((payload) => payload['turnId'] === turnId);
}

async function waitCall(request: Partial<WaitRequest>): Promise<WaitResponse[]> {
  const responses: WaitResponse[] = [];
  for await (const response of callStream(client, 'wait', { userId, callerSessionId: '', sessionId: '', messageId: '', waitSeconds: 60, ...request })) {
    responses.push(response);
  }
  return responses;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('the turn runner with the script provider', () => {
  it('runs a queued turn to done: reply lines, relay_tool through MCP with the session worker token, the reply as a message, events, idle', async () => {
    const sessionId = await newSession();
    const { turnId, messageId } = await queue(
      sessionId,
      [
        '[Remote prompt from an agent on relay "desk" · session "Lead" · script-1 · acting for the user]',
        'reply Looking.',
        `relay_tool {"action":"list_sessions","session":"${sessionId}"}`,
        'reply Found {{result.action}} for {{result.args.session}}.',
      ].join('\n'),
    );
    startRunner();

    const row = await untilStatus(turnId, 'done', 'error', 'stopped');
    expect(row).toMatchObject({
      status: 'done',
      replyText: `Looking.\nFound list_sessions for ${sessionId}.`,
      replyModel: 'script-1',
      error: '',
      inFlight: '',
      leaseUntil: null,
    });

    const call = gateway.calls.find((c) => c.args['session'] === sessionId);
    expect(call?.args).toEqual({ action: 'list_sessions', session: sessionId });
    const token = await prisma.apiToken.findUnique({ where: { tokenHash: nodeCrypto.hash(call?.token ?? '') } });
    expect(token).toMatchObject({ kind: 'session', sessionId, userId });
    expect(call?.token).toMatch(/^rly_s_/);

    const session = await prisma.session.findUniqueOrThrow({ where: { id: sessionId } });
    expect(session).toMatchObject({ state: 'idle', workerStarted: true, messageCount: 1 });
    const messages = await prisma.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' } });
    expect(messages.map((m) => [m.role, m.text, m.model])).toEqual([
      ['user', expect.any(String), ''],
      ['assistant', `Looking.\nFound list_sessions for ${sessionId}.`, 'script-1'],
    ]);

    expect(await outboxEvents(SessionEvents.TURN_STARTED.subject, turnId)).toEqual([expect.objectContaining({ sessionId, userId, turnId, messageId })]);
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([
      expect.objectContaining({ sessionId, userId, turnId, messageId, status: 'TURN_STATUS_DONE', text: `Looking.\nFound list_sessions for ${sessionId}.` }),
    ]);
  });

  it('replies with the last relay_tool result as JSON when the prompt has no reply step, and "ok" without one', async () => {
    const sessionId = await newSession();
    const withResult = await queue(sessionId, `relay_tool {"action":"relay_info","session":"${sessionId}"}`);
    const without = await queue(sessionId, '# nothing to do\nwait 0');
    startRunner();
    expect(JSON.parse((await untilStatus(withResult.turnId, 'done')).replyText)).toEqual({
      ok: true,
      action: 'relay_info',
      args: { action: 'relay_info', session: sessionId },
    });
    expect((await untilStatus(without.turnId, 'done')).replyText).toBe('ok');
  });

  it('answers a prompt that is not a script with "no steps", and runs nothing', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'Please review the code under server/.');
    startRunner();
    expect(await untilStatus(turnId, 'done')).toMatchObject({ replyText: 'script-1: no steps in the prompt', replyModel: 'script-1' });
  });

  it.each([
    ['fail Out of coffee: {{answer}}done', 'Out of coffee: done'],
    ['reply never\ntask npm test', 'task is not available yet'],
    ['reply one\nthis is not a step', 'script-1: line 2 is not a step (reply, relay_tool, wait, ask_user, fail, task): this is not a step'],
  ])('ends %j as error "%s"', async (prompt, error) => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, prompt);
    startRunner();
    expect(await untilStatus(turnId, 'error', 'done')).toMatchObject({ status: 'error', error, replyText: '' });
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([expect.objectContaining({ status: 'TURN_STATUS_ERROR', text: error })]);
    expect(gateway.calls.some((c) => c.args['session'] === sessionId)).toBe(false);
  });

  it('ends a turn whose session provider cannot run here as an error, and a turn stopped before it started as stopped', async () => {
    const claude = await newSession({ provider: 'claude' });
    const cannot = await queue(claude, 'reply hi');
    const script = await newSession();
    const stoppedEarly = await queue(script, 'reply hi', { stopRequested: true });
    startRunner();
    expect(await untilStatus(cannot.turnId, 'error')).toMatchObject({ error: 'provider "claude" does not run turns on this relay' });
    expect(await untilStatus(stoppedEarly.turnId, 'stopped')).toMatchObject({ replyText: '', error: '' });
    expect((await prisma.session.findUniqueOrThrow({ where: { id: script } })).state).toBe('idle');
  });

  it('runs the turns of one session one after another while two sessions run side by side', async () => {
    const a = await newSession();
    const b = await newSession();
    const a1 = await queue(a, 'reply a1 waits\nwait 5\nreply a1 done');
    const a2 = await queue(a, 'reply a2 ran');
    const b1 = await queue(b, 'reply b1 waits\nwait 5\nreply b1 done');
    startRunner();

    await Promise.all([untilParked(a1.turnId, 'a1 waits'), untilParked(b1.turnId, 'b1 waits')]);
    expect((await turnRow(a2.turnId)).status).toBe('queued');
    expect((await prisma.session.findUniqueOrThrow({ where: { id: a } })).state).toBe('running_turn');

    clock.advance(5_000);
    const [a1Row, a2Row] = [await untilStatus(a1.turnId, 'done'), await untilStatus(a2.turnId, 'done')];
    await untilStatus(b1.turnId, 'done');
    expect(a1Row.replyText).toBe('a1 waits\na1 done');
    expect(a2Row.replyText).toBe('a2 ran');
    expect(a2Row.startedAt!.getTime()).toBeGreaterThanOrEqual(a1Row.endedAt!.getTime());
    expect((await prisma.session.findUniqueOrThrow({ where: { id: a } })).state).toBe('idle');
  });

  it('two runners on one database never run one turn twice, nor two turns of a session at once', async () => {
    gateway.answer = async (call) => {
      // Widen each call so that overlapping turns of one session would be seen.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { ok: true, action: call.args['action'] };
    };
    const sessions = await Promise.all(Array.from({ length: 4 }, () => newSession()));
    const queued: string[] = [];
    for (let round = 0; round < 5; round++) {
      for (const sessionId of sessions) {
        queued.push((await queue(sessionId, `relay_tool {"action":"ping","session":"${sessionId}"}\nreply ${round}`)).turnId);
      }
    }
    const [first, second] = [startRunner(), startRunner()];
    expect(first.runnerId).not.toBe(second.runnerId);

    for (const turnId of queued) await untilStatus(turnId, 'done');
    for (const turnId of queued) expect(await outboxEvents(SessionEvents.TURN_STARTED.subject, turnId)).toHaveLength(1);
    for (const sessionId of sessions) {
      expect(gateway.calls.filter((c) => c.args['session'] === sessionId)).toHaveLength(5);
      expect(gateway.maxConcurrentBySession.get(sessionId)).toBe(1);
      const replies = await prisma.turn.findMany({ where: { sessionId }, orderBy: { queuedAt: 'asc' }, select: { replyText: true } });
      expect(replies.map((r) => r.replyText)).toEqual(['0', '1', '2', '3', '4']);
    }
    const ranBy = await prisma.turn.groupBy({ by: ['runnerId'], where: { id: { in: queued } }, _count: true });
    expect(ranBy.map((g) => g.runnerId).every((id) => id === first.runnerId || id === second.runnerId)).toBe(true);
  });

  it('stop ends a `wait 600` turn as stopped, at once; StopTurn answers false when nothing runs or is queued', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply partial\nwait 600\nreply never');
    startRunner();
    await untilParked(turnId, 'partial');

    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId })).toEqual({ stopRequested: true });
    expect(await untilStatus(turnId, 'stopped', 'done', 'error')).toMatchObject({ status: 'stopped', replyText: '', inFlight: '' });
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([expect.objectContaining({ status: 'TURN_STATUS_STOPPED' })]);
    expect((await prisma.session.findUniqueOrThrow({ where: { id: sessionId } })).state).toBe('idle');

    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId })).toEqual({ stopRequested: false });
  });

  it('a stopped turn reads stopped only once the card it left pending is withdrawn, though its provider withdrew none', async () => {
    const sessionId = await newSession({ provider: 'approving' });
    const { turnId } = await queue(sessionId, 'run');
    startRunner();
    const card = await until(async () => questionService.cards.find((c) => c.sessionId === sessionId), 'the card is raised');
    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId })).toEqual({ stopRequested: true });
    expect(await untilStatus(turnId, 'stopped', 'done', 'error')).toMatchObject({ status: 'stopped' });
    expect(card.status).toBe(CardStatus.CARD_STATUS_CANCELLED);
  });

  it('drain (a rollout): claims no new turn, lets the running ones end by themselves, a stop request still reaches them, and the queued turn waits', async () => {
    const [finishing, stopping, waiting] = await Promise.all([newSession(), newSession({ provider: 'plain' }), newSession()]);
    const first = await queue(finishing, 'reply a\nwait 5\nreply done');
    const second = await queue(stopping, 'b');
    const runner = startRunner();
    await Promise.all([untilParked(first.turnId, 'a'), untilParked(second.turnId, 'b')]);

    // A grace far beyond the test: the drain ends when both turns have ended, not when it runs out.
    const drained = runner.drain(600_000);
    const queued = await queue(waiting, 'reply c');
    signals.work();
    clock.advance(5_000);
    expect(await untilStatus(first.turnId, 'done', 'error', 'stopped')).toMatchObject({ status: 'done', replyText: 'a\ndone' });
    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId: stopping })).toEqual({ stopRequested: true });
    await drained;
    expect(await turnRow(second.turnId)).toMatchObject({ status: 'stopped' });
    // Never claimed here: the next replica (or this one's successor) runs it.
    expect(await turnRow(queued.turnId)).toMatchObject({ status: 'queued', runnerId: null });
    const successor = startRunner();
    expect(await untilStatus(queued.turnId, 'done', 'error')).toMatchObject({ status: 'done', runnerId: successor.runnerId });
  });

  it('drain ends a turn still running when the grace runs out as "the relay stopped", with its event, when its provider saved no resume point', async () => {
    const sessionId = await newSession({ provider: 'plain' });
    const { turnId } = await queue(sessionId, 'long');
    const runner = startRunner();
    await untilParked(turnId, 'long');
    await runner.drain(0);
    expect(await turnRow(turnId)).toMatchObject({ status: 'error', error: RELAY_STOPPED_ERROR, inFlight: '' });
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([
      expect.objectContaining({ status: 'TURN_STATUS_ERROR', text: RELAY_STOPPED_ERROR }),
    ]);
  });

  it('StopTurn refuses the caller’s own conversation and another user’s session, and changes nothing', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply x');
    const own = await refusal(callUnary(client, 'stopTurn', { userId, callerSessionId: sessionId, sessionId }));
    expect(own.code).toBe('REMOTE_RELAY_FORBIDDEN');
    const other = await refusal(callUnary(client, 'stopTurn', { userId: await newUser(), callerSessionId: '', sessionId }));
    expect(other.code).toBe('REMOTE_RELAY_NOT_FOUND');
    const missing = await refusal(callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId: randomUUID() }));
    expect(missing.code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await turnRow(turnId)).toMatchObject({ status: 'queued', stopRequested: false });
    await prisma.turn.update({ where: { id: turnId }, data: { status: 'stopped' } });
  });

  it('ends the turn of a runner that died (its lease ran out) as error with the reason, once, when its provider saved no resume point', async () => {
    const sessionId = await newSession({ provider: 'plain' });
    const { turnId } = await queue(sessionId, 'working');
    // This runner's clock never moves: it stops renewing, as a killed process would.
    const frozen = new ManualClock(clock.now());
    const dying = startRunner({ runnerClock: frozen });
    await untilParked(turnId, 'working');
    expect((await turnRow(turnId)).runnerId).toBe(dying.runnerId);

    clock.advance(31_000);
    const survivor = startRunner();
    const row = await untilStatus(turnId, 'error');
    expect(row).toMatchObject({ error: RELAY_STOPPED_ERROR, runnerId: dying.runnerId, inFlight: '' });
    expect(survivor.runningTurnIds()).not.toContain(turnId);
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([
      expect.objectContaining({ status: 'TURN_STATUS_ERROR', text: RELAY_STOPPED_ERROR }),
    ]);
    expect((await prisma.session.findUniqueOrThrow({ where: { id: sessionId } })).state).toBe('idle');

    // The dead runner coming back to life cannot touch the turn again.
    await dying.stop();
    expect(await turnRow(turnId)).toMatchObject({ status: 'error', error: RELAY_STOPPED_ERROR });
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toHaveLength(1);
  });

  it('drain hands a turn that waits for a person over at once; another runner goes on with the same card, and the answer applies once', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply a\nask_user Go? | Yes | No\nreply {{answer}}');
    const leaving = startRunner();
    await untilStatus(turnId, 'waiting_for_answer');
    const staying = startRunner();
    // A grace far beyond the test: the drain ends as soon as the waiting turn is handed over.
    await leaving.drain(600_000);
    const taken = await until(async () => {
      const row = await turnRow(turnId);
      return row.runnerId === staying.runnerId ? row : undefined;
    }, 'the staying runner took the turn over');
    expect(taken).toMatchObject({ status: 'waiting_for_answer', inFlight: 'a' });
    const cards = questionService.cards.filter((c) => c.sessionId === sessionId);
    expect(cards).toHaveLength(1);
    expect(taken.pendingQuestions).toEqual([{ id: cards[0]!.id, kind: 'ask_user', question: 'Go?', options: ['Yes', 'No'] }]);

    questionService.answer(cards[0]!.id, 'Yes');
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'a\nYes', runnerId: staying.runnerId });
    expect(await outboxEvents(SessionEvents.TURN_STARTED.subject, turnId)).toHaveLength(1);
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([expect.objectContaining({ status: 'TURN_STATUS_DONE' })]);
    const asked = (await prisma.outboxMessage.findMany({ where: { subject: SessionEvents.QUESTION_ASKED.subject } })).map(
      (row) => row.payload as Record<string, unknown>,
    );
    expect(asked.filter((payload) => payload['sessionId'] === sessionId)).toHaveLength(1);
    expect(await prisma.message.count({ where: { sessionId, role: 'assistant' } })).toBe(1);
  });

  it('drain hands a turn over the moment it comes to wait for a person, not at the end of the grace', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply a\nwait 5\nask_user Go? | Yes | No\nreply {{answer}}');
    const leaving = startRunner();
    await untilParked(turnId, 'a');
    // A grace far beyond the test: the drain ends once the turn, its timer over, waits on its card and is handed over.
    const drained = leaving.drain(600_000);
    clock.advance(5_000);
    await drained;
    // Let go as the ask step began: its card is raised by the runner that takes the turn over.
    expect(await turnRow(turnId)).toMatchObject({ status: 'running', runnerId: null, leaseUntil: null });
    expect(questionService.cards.filter((c) => c.sessionId === sessionId)).toEqual([]);
    const staying = startRunner();
    const card = await until(async () => questionService.cards.find((c) => c.sessionId === sessionId), 'the card');
    await until(async () => (await turnRow(turnId)).runnerId === staying.runnerId, 'the staying runner took the turn over');
    questionService.answer(card.id, 'No');
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'a\nNo' });
    expect(questionService.cards.filter((c) => c.sessionId === sessionId)).toHaveLength(1);
  });

  it('drain hands a running turn over when the grace runs out; the next runner makes its read again, never its write', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    gateway.answer = async (call) => {
      await held;
      return { ok: true, action: call.args['action'] };
    };
    const made = (action: string) => gateway.calls.filter((c) => c.args['action'] === action).length;
    const [sendsBefore, listsBefore] = [made('send'), made('list_sessions')];
    const [reading, writing] = await Promise.all([newSession(), newSession()]);
    const read = await queue(reading, 'reply a\nrelay_tool {"action":"list_sessions"}\nreply {{result.action}}');
    const write = await queue(writing, 'reply b\nrelay_tool {"action":"send","session":"s-9","text":"hi"}\nreply never');
    const leaving = startRunner();
    await until(async () => made('send') === sendsBefore + 1 && made('list_sessions') === listsBefore + 1, 'both calls are under way');
    await leaving.drain(0);
    release();
    const staying = startRunner();
    expect(await untilStatus(read.turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'a\nlist_sessions', runnerId: staying.runnerId });
    const ended = await untilStatus(write.turnId, 'done', 'error');
    expect(ended.status).toBe('error');
    expect(ended.error).toMatch(
      /^script-1: line 2: relay_tool send was under way when the relay handed this turn to another of its replicas; it is not done twice/,
    );
    expect([made('send'), made('list_sessions')]).toEqual([sendsBefore + 1, listsBefore + 2]);
    expect(await prisma.message.findMany({ where: { sessionId: writing, role: 'error' }, select: { text: true } })).toEqual([
      { text: expect.stringContaining('relay_tool send was under way') },
    ]);
  });

  it('takes over the script turn of a runner that died once its lease ran out, and goes on from its step', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply working\nwait 600\nreply done');
    const frozen = new ManualClock(clock.now());
    const dying = startRunner({ runnerClock: frozen });
    await untilParked(turnId, 'working');

    clock.advance(31_000);
    const survivor = startRunner();
    await until(async () => (await turnRow(turnId)).runnerId === survivor.runnerId, 'the survivor took the turn over');
    clock.advance(600_000);
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'working\ndone', runnerId: survivor.runnerId });
    // The dead runner coming back to life cannot touch the turn again.
    await dying.stop();
    expect(await outboxEvents(SessionEvents.TURN_STARTED.subject, turnId)).toHaveLength(1);
    expect(await outboxEvents(SessionEvents.TURN_ENDED.subject, turnId)).toEqual([expect.objectContaining({ status: 'TURN_STATUS_DONE' })]);
  });

  it('a live runner keeps its lease across relay time', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply working\nwait 60\nreply finished');
    startRunner();
    await untilParked(turnId, 'working');
    for (let i = 0; i < 6; i++) {
      clock.advance(9_000);
      await until(async () => ((await turnRow(turnId)).leaseUntil?.getTime() ?? 0) > clock.now().getTime(), 'the lease is renewed');
    }
    clock.advance(10_000);
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'working\nfinished' });
  });

  it('ends a turn that runs past Max turn duration as error', async () => {
    maxTurnMinutes = 1;
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'reply working\nwait 600');
    startRunner();
    await untilParked(turnId, 'working');
    for (let i = 0; i < 7; i++) clock.advance(9_000);
    expect(await untilStatus(turnId, 'error', 'done')).toMatchObject({
      status: 'error',
      error: "the turn ran longer than this relay's Max turn duration (1 minute)",
    });
  });

  it('ask_user raises a question card, waits for the answer as waiting_for_answer, then goes on with it', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'ask_user Ship tonight? | Tonight | Wait\nreply You chose {{answer}}.');
    startRunner();

    const waiting = await untilStatus(turnId, 'waiting_for_answer');
    const card = questionService.cards.find((c) => c.sessionId === sessionId);
    expect(card).toMatchObject({ userId, kind: CardKind.CARD_KIND_QUESTION, title: 'Ship tonight?', options: ['Tonight', 'Wait'] });
    expect(waiting.pendingQuestions).toEqual([{ id: card!.id, kind: 'ask_user', question: 'Ship tonight?', options: ['Tonight', 'Wait'] }]);
    const asked = (await prisma.outboxMessage.findMany({ where: { subject: SessionEvents.QUESTION_ASKED.subject } })).map(
      (row) => row.payload as Record<string, unknown>,
    );
    expect(asked).toContainEqual(
      expect.objectContaining({ sessionId, userId, question: { id: card!.id, kind: 'ask_user', question: 'Ship tonight?', options: ['Tonight', 'Wait'] } }),
    );

    questionService.answer(card!.id, 'Tonight');
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'You chose Tonight.', pendingQuestions: [] });
  });

  it('a sub-agent the provider reports finishing becomes a subagent_finished event of the turn', async () => {
    const sessionId = await newSession({ provider: 'subagents' });
    const { turnId } = await queue(sessionId, 'review the change');
    startRunner();
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'reviewed' });
    expect(await outboxEvents(SessionEvents.SUBAGENT_FINISHED.subject, turnId)).toEqual([
      expect.objectContaining({ sessionId, userId, turnId, description: 'Check web/ for XSS', status: 'completed', summary: 'No XSS found' }),
      expect.objectContaining({ sessionId, userId, turnId, description: 'Run the e2e suite', status: 'failed' }),
    ]);
  });

  it('a turn that keeps working announces turn_activity at most once a minute of relay time, with the instant of its activity', async () => {
    const sessionId = await newSession({ provider: 'working' });
    const startedAt = clock.now().getTime();
    const { turnId } = await queue(sessionId, 'fix the bug');
    startRunner();
    expect(await untilStatus(turnId, 'done', 'error')).toMatchObject({ status: 'done', replyText: 'worked' });
    // Activity at 20, 50, 65, 70, 110 and 150 s after the start: announced at 65 s (a minute after the start) and
    // 150 s (a minute after that); 110 s is only 45 s after 65 s.
    const instant = (ms: number) => new Date(startedAt + ms).toISOString();
    expect(await outboxEvents(SessionEvents.TURN_ACTIVITY.subject, turnId)).toEqual([
      expect.objectContaining({ sessionId, userId, turnId, occurredAt: instant(65_000), lastActivityAt: instant(65_000) }),
      expect.objectContaining({ sessionId, userId, turnId, occurredAt: instant(150_000), lastActivityAt: instant(150_000) }),
    ]);
  });

  it('stopping a turn that waits for an answer withdraws its card', async () => {
    const sessionId = await newSession();
    const { turnId } = await queue(sessionId, 'ask_user Really?\nreply never');
    startRunner();
    await untilStatus(turnId, 'waiting_for_answer');
    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId })).toEqual({ stopRequested: true });
    expect(await untilStatus(turnId, 'stopped', 'error', 'done')).toMatchObject({ status: 'stopped', pendingQuestions: [] });
    await until(async () => questionService.cards.find((c) => c.sessionId === sessionId)?.status === CardStatus.CARD_STATUS_CANCELLED, 'the card is withdrawn');
  });
});

describe("a session's last turn, as ListSessions and ReadSession answer it", () => {
  /** The session's last_turn as ListSessions sends it, after checking that ReadSession sends the same. */
  async function lastTurnOf(sessionId: string) {
    const listed = (await listSessions(reads, { userId, scope: 'all', page: { limit: 100, offset: 0 } }, clock.now())).sessions.find(
      (session) => session.id === sessionId,
    );
    const read = await reads.readSession(sessionId, 1, clock.now());
    expect(toSessionMessage(read!.session).lastTurn).toEqual(toSessionMessage(listed!).lastTurn);
    return toSessionMessage(listed!).lastTurn;
  }

  it('is the turn that ended last — failed with its error, then stopped, then done — and none before a turn ended', async () => {
    const sessionId = await newSession();
    expect(await lastTurnOf(sessionId)).toBeUndefined();
    startRunner();

    const failed = await queue(sessionId, 'reply building\nfail the build broke');
    await untilStatus(failed.turnId, 'error', 'done');
    const failedAt = clock.now();
    expect(await lastTurnOf(sessionId)).toEqual({ status: TurnStatus.TURN_STATUS_ERROR, error: 'the build broke', endedAt: failedAt });

    clock.advance(1_000);
    const stopped = await queue(sessionId, 'reply partial\nwait 600\nreply never');
    await untilParked(stopped.turnId, 'partial');
    // While the next turn runs, the last one that ended is still the failed one (the session reads as working).
    expect(await lastTurnOf(sessionId)).toEqual({ status: TurnStatus.TURN_STATUS_ERROR, error: 'the build broke', endedAt: failedAt });
    expect(await callUnary(client, 'stopTurn', { userId, callerSessionId: '', sessionId })).toEqual({ stopRequested: true });
    await untilStatus(stopped.turnId, 'stopped', 'done', 'error');
    expect(await lastTurnOf(sessionId)).toEqual({ status: TurnStatus.TURN_STATUS_STOPPED, error: '', endedAt: clock.now() });

    clock.advance(1_000);
    const done = await queue(sessionId, 'reply fixed');
    await untilStatus(done.turnId, 'done', 'error');
    expect(await lastTurnOf(sessionId)).toEqual({ status: TurnStatus.TURN_STATUS_DONE, error: '', endedAt: clock.now() });
  });

  it('of two turns that ended at one relay instant is the one queued later', async () => {
    const sessionId = await newSession();
    startRunner();
    const running = await queue(sessionId, 'fail first\nreply never');
    await untilStatus(running.turnId, 'error');
    const later = await queue(sessionId, 'reply later', { stopRequested: true });
    await untilStatus(later.turnId, 'stopped');
    expect(await lastTurnOf(sessionId)).toMatchObject({ status: TurnStatus.TURN_STATUS_STOPPED });
  });
});

describe('bus nudges', () => {
  it('turn_queued and turn_ended published through the outbox reach every listener as work and ended signals', async () => {
    const local = new TurnSignals();
    const listener = listenForTurnSignals(bus, local, logger);
    try {
      const turnId = randomUUID();
      const heard = { work: 0, ended: 0 };
      const stopWork = local.onWork(() => heard.work++);
      const stopEnded = local.onEnded(turnId, () => heard.ended++);
      await prisma.$transaction(async (tx) => {
        await enqueue(tx, SessionEvents.TURN_QUEUED, SessionEvents.TURN_QUEUED.codec.fromPartial({ turnId }));
        await enqueue(tx, SessionEvents.TURN_ENDED, SessionEvents.TURN_ENDED.codec.fromPartial({ turnId, status: TurnStatus.TURN_STATUS_DONE }));
      });
      await until(async () => heard.work > 0 && heard.ended === 1, 'both nudges are heard');
      stopWork();
      stopEnded();
    } finally {
      listener.stop();
    }
  });
});

describe('Wait', () => {
  it('returns the result at once when the turn has ended', async () => {
    const sessionId = await newSession();
    const { turnId, messageId } = await queue(sessionId, 'reply Yes. The deploy is green.');
    startRunner();
    await untilStatus(turnId, 'done');
    expect(await waitCall({ sessionId, messageId, waitSeconds: 600 })).toEqual([
      {
        result: {
          sessionId,
          messageId,
          status: TurnStatus.TURN_STATUS_DONE,
          replyText: 'Yes. The deploy is green.',
          replyModel: 'script-1',
          error: '',
          pendingQuestions: [],
          delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
        },
      },
    ]);
  });

  it('keeps the call alive with progress and returns the result when the turn ends', async () => {
    const sessionId = await newSession();
    const { turnId, messageId } = await queue(sessionId, 'reply started\nwait 30\nreply finished');
    startRunner();
    await untilParked(turnId, 'started');

    const responses: WaitResponse[] = [];
    for await (const response of callStream(client, 'wait', { userId, callerSessionId: '', sessionId, messageId, waitSeconds: 600 })) {
      responses.push(response);
      // The turn ends only after a keep-alive went out.
      if (responses.length === 1) clock.advance(30_000);
    }
    expect(responses.at(-1)).toEqual({
      result: expect.objectContaining({ sessionId, messageId, status: TurnStatus.TURN_STATUS_DONE, replyText: 'started\nfinished' }),
    });
    expect(responses.slice(0, -1).length).toBeGreaterThan(0);
    expect(responses.slice(0, -1).every((r) => r.progressSeconds !== undefined && r.result === undefined)).toBe(true);
  });

  it('returns running when wait_seconds of relay time run out, and the turn goes on', async () => {
    const sessionId = await newSession();
    const { turnId, messageId } = await queue(sessionId, 'reply working\nwait 600');
    startRunner();
    await untilParked(turnId, 'working');

    const waiting = waitCall({ sessionId, messageId, waitSeconds: 10 });
    let result: WaitResponse[] | undefined;
    void waiting.then((responses) => (result = responses));
    await until(async () => {
      clock.advance(1_000);
      return result;
    }, 'the wait returns');
    expect(result!.at(-1)?.result).toMatchObject({ status: TurnStatus.TURN_STATUS_RUNNING, replyText: '' });
    expect((await turnRow(turnId)).status).toBe('running');
  });

  it('returns waiting_for_answer with the pending question when time runs out on a question', async () => {
    const sessionId = await newSession();
    const { turnId, messageId } = await queue(sessionId, 'ask_user Which region? | eu | us\nreply {{answer}}');
    startRunner();
    await untilStatus(turnId, 'waiting_for_answer');
    const [only] = await waitCall({ sessionId, messageId, waitSeconds: 0 });
    expect(only?.result).toMatchObject({
      status: TurnStatus.TURN_STATUS_WAITING_FOR_ANSWER,
      pendingQuestions: [{ id: expect.any(String), kind: 'ask_user', question: 'Which region?', options: ['eu', 'us'] }],
    });
    questionService.answer(only!.result!.pendingQuestions[0]!.id, 'eu');
    expect(await untilStatus(turnId, 'done')).toMatchObject({ replyText: 'eu' });
  });

  it('answers NOT_FOUND for a message of another session or user, and FORBIDDEN on the caller’s own conversation', async () => {
    const sessionId = await newSession();
    const other = await newSession();
    const { messageId } = await queue(sessionId, 'reply hi');
    startRunner();
    expect((await refusal(waitCall({ sessionId: other, messageId }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect((await refusal(waitCall({ sessionId, messageId: randomUUID() }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect((await refusal(waitCall({ userId: await newUser(), sessionId, messageId }))).code).toBe('REMOTE_RELAY_NOT_FOUND');
    expect((await refusal(waitCall({ callerSessionId: sessionId, sessionId, messageId }))).code).toBe('REMOTE_RELAY_FORBIDDEN');
  });
});
