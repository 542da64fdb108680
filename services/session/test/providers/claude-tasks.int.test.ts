/**
 * The Claude provider's tasks against real PostgreSQL and a real shell, with a scripted stand-in for the SDK's
 * query() (the real one needs credentials): a background Bash the user allowed runs as the relay's task and
 * outlives the turn, and Claude Code's sub-agents show as local_agent tasks while they run, with their events.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { ManualClock } from '@relay/clock';
import { SessionState, type Session as SessionMessage } from '@relay/proto/relay/session/v1/session';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { commandEnv } from '../../src/config.ts';
import { readTaskOutput, SUBAGENT_NO_OUTPUT_NOTE } from '../../src/app/tasks/read-task-output.ts';
import { nodeRealFolders } from '../../src/adapters/fs/real-folders.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { ClaudeProvider, type QueryFn } from '../../src/adapters/providers/claude/claude-provider.ts';
import { TURN_ENDED_REASON } from '../../src/adapters/providers/claude/turn-subagents.ts';
import type { ProviderEvent, TurnInput } from '../../src/app/turns/provider.ts';
import type { QuestionCards } from '../../src/app/turns/question-cards.ts';
import { bubblewrapSandbox } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';
import { BackgroundTasks } from '../../src/adapters/tasks/background-tasks.ts';
import { PrismaTaskStore } from '../../src/adapters/store/prisma-task-store.ts';
import { withTasks } from '../../src/adapters/grpc/session-tasks.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { until } from '../until.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'claude-tasks-test', level: 'silent' });
const clock = new ManualClock('2026-11-30T10:00:00.000Z');

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaTaskStore;
let tasks: BackgroundTasks;
let workDir: string;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaTaskStore(prisma, API_MESSAGES);
  tasks = new BackgroundTasks({
    store,
    clock,
    logger,
    host: hostname(),
    runnerId: 'runner-claude',
    env: commandEnv(),
    allowedRoots: [await realpath(tmpdir())],
    folders: nodeRealFolders,
    sandbox: bubblewrapSandbox({ path: process.env.PATH }),
  });
  workDir = await mkdtemp(join(tmpdir(), 'relay-claude-tasks-'));
  userId = randomUUID();
  await prisma.user.create({ data: { id: userId, name: 'Ada', createdAt: clock.now() } });
}, 60_000);

afterEach(async () => {
  await tasks.stopAll();
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await rm(workDir, { recursive: true, force: true });
});

async function newSession(): Promise<string> {
  const id = randomUUID();
  await prisma.session.create({
    data: {
      id,
      userId,
      title: 'Build',
      provider: 'claude',
      model: 'claude-opus-5-5',
      origin: 'hosted',
      state: 'running_turn',
      cwd: workDir,
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
    },
  });
  return id;
}

async function subjects(taskId: string): Promise<string[]> {
  const rows = await prisma.outboxMessage.findMany({ orderBy: { createdAt: 'asc' } });
  return rows
    .filter((row) => ((row.payload as { task?: { id?: string } }).task?.id ?? (row.payload as { taskId?: string }).taskId) === taskId)
    .map((row) => row.subject);
}

const read = (sessionId: string, taskId: string) =>
  readTaskOutput({ tasks: store, output: store, relay: { name: 'desk' }, quietAfterMinutes: 10 }, { userId, sessionId, taskId, lines: 0, now: clock.now() });

/** The session's tasks as list_sessions and read_session show them. */
async function shownTasks(sessionId: string) {
  const deps = { store, output: store, now: () => clock.now(), quietAfterMinutes: async () => 10 };
  const [shown] = await withTasks(deps, [{ id: sessionId, state: SessionState.SESSION_STATE_RUNNING_TURN, tasks: [] } as unknown as SessionMessage]);
  return shown!.tasks;
}

const result = (reply: string): SDKMessage =>
  ({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: reply,
    total_cost_usd: 0,
    session_id: 'cc-1',
    uuid: 'u',
    usage: { input_tokens: 0, output_tokens: 0 },
    modelUsage: {},
    permission_denials: [],
    duration_ms: 1,
    duration_api_ms: 1,
    num_turns: 1,
    stop_reason: 'end_turn',
  }) as unknown as SDKMessage;
const system = (fields: Record<string, unknown>) => ({ type: 'system', session_id: 'cc-1', uuid: 'u', ...fields }) as unknown as SDKMessage;

/** Every card answered Allow. */
const allowAll: QuestionCards = { raise: async () => 'card-1', awaitAnswer: async () => 'Allow', cancel: async () => {} };

function claude(run: (options: Options) => AsyncGenerator<SDKMessage>): ClaudeProvider {
  const query: QueryFn = ({ prompt, options }) =>
    (async function* () {
      await prompt[Symbol.asyncIterator]().next();
      yield* run(options);
    })();
  return new ClaudeProvider('claude', {
    billing: { provider: 'claude', oauthToken: 'oauth' },
    missing: '',
    executable: { path: '/opt/claude/claude', reason: '' },
    sandbox: bubblewrapSandbox({ path: process.env.PATH }),
    models: ['claude-opus-5-5'],
    gatewayUrl: 'http://127.0.0.1:7420',
    cards: allowAll,
    tasks,
    states: { get: async () => undefined, set: async () => {} },
    usage: { record: async () => {}, pause: async () => {} },
    logger,
    baseEnv: {},
    query,
    hasTranscript: async () => true,
    history: async () => [],
  });
}

function turnOf(sessionId: string): { input: TurnInput; events: ProviderEvent[] } {
  const session = {
    id: sessionId,
    userId,
    title: 'Build',
    provider: 'claude',
    model: 'claude-opus-5-5',
    effort: '',
    mode: 'agent' as const,
    cwd: workDir,
    autoCompactWindow: 'auto',
    thinkingEnabled: true,
    thinkingDisplay: 'summarized',
  };
  const events: ProviderEvent[] = [];
  return {
    events,
    input: {
      session,
      message: { id: randomUUID(), text: 'Run the tests' },
      token: 'rly_s_t',
      signal: new AbortController().signal,
      clock,
      emit: async (event) => void events.push(event),
    },
  };
}

describe('a Claude session’s tasks', () => {
  it('a background Bash the user allowed runs as the relay’s task in the session folder, after the turn too; Claude Code is told its id', async () => {
    const sessionId = await newSession();
    let answer: { behavior: string; message?: string } | undefined;
    const provider = claude(async function* (options) {
      answer = (await options.canUseTool!(
        'Bash',
        { command: 'echo started; pwd', description: 'Run the slow suite', run_in_background: true },
        {
          signal: new AbortController().signal,
          toolUseID: 't1',
          requestId: 'r1',
        },
      )) as typeof answer;
      yield result('Started the suite in the background.');
    });
    const { input } = turnOf(sessionId);
    await provider.startTurn(input);

    const [row] = await prisma.task.findMany({ where: { sessionId } });
    expect(row).toMatchObject({ type: 'local_bash', description: 'Run the slow suite', cwd: workDir });
    expect(answer).toEqual({ behavior: 'deny', message: expect.stringContaining(`background task ${row!.id}`) });
    expect(answer!.message).toContain(`"session":"${sessionId}","task_id":"${row!.id}"`);
    const ended = await until(async () => {
      const task = await prisma.task.findUniqueOrThrow({ where: { id: row!.id } });
      return task.status === 'running' ? undefined : task;
    }, 'the command ended');
    expect(ended).toMatchObject({ status: 'completed', exitCode: 0 });
    expect((await read(sessionId, row!.id)).tail).toEqual(['started', workDir]);
    expect(await subjects(row!.id)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_OUTPUT.subject, SessionEvents.TASK_FINISHED.subject]);
  });

  it('a foreground Bash is allowed to run in Claude Code: no task', async () => {
    const sessionId = await newSession();
    let answer: unknown;
    const provider = claude(async function* (options) {
      answer = await options.canUseTool!('Bash', { command: 'npm run build' }, { signal: new AbortController().signal, toolUseID: 't1', requestId: 'r1' });
      yield result('Built.');
    });
    await provider.startTurn(turnOf(sessionId).input);
    expect(answer).toEqual({ behavior: 'allow', updatedInput: { command: 'npm run build' } });
    expect(await prisma.task.count({ where: { sessionId } })).toBe(0);
  });

  it('sub-agents are local_agent tasks while they run, end with the notification’s status, and are stopped when the turn ends without one', async () => {
    const sessionId = await newSession();
    let whileRunning: Awaited<ReturnType<typeof shownTasks>> = [];
    let readWhileRunning: Awaited<ReturnType<typeof read>> | undefined;
    const provider = claude(async function* () {
      // A second apart, so that they list in this order.
      yield system({ subtype: 'task_started', task_id: 'a1', description: 'Check web/ for XSS', task_type: 'local_agent' });
      clock.advance(1_000);
      yield system({ subtype: 'task_started', task_id: 'a2', description: 'Review the migrations', task_type: 'local_agent' });
      clock.advance(1_000);
      yield system({ subtype: 'task_started', task_id: 'a3', description: 'Run the e2e suite', task_type: 'local_agent' });
      yield system({ subtype: 'task_progress', task_id: 'a3', description: 'Run the e2e suite', usage: { total_tokens: 1, tool_uses: 1, duration_ms: 1 } });
      whileRunning = await shownTasks(sessionId);
      readWhileRunning = await read(sessionId, whileRunning[0]!.id);
      yield system({ subtype: 'task_notification', task_id: 'a1', status: 'completed', output_file: '', summary: 'No XSS found' });
      yield system({ subtype: 'task_notification', task_id: 'a2', status: 'failed', output_file: '', summary: 'Could not read the migrations' });
      yield result('Two of three done.');
    });
    const { input, events } = turnOf(sessionId);
    await provider.startTurn(input);

    expect(whileRunning).toEqual([
      expect.objectContaining({ description: 'Check web/ for XSS', type: 'local_agent', status: 'running', hasOutput: false, health: undefined }),
      expect.objectContaining({ description: 'Review the migrations', type: 'local_agent', status: 'running', hasOutput: false }),
      expect.objectContaining({ description: 'Run the e2e suite', type: 'local_agent', status: 'running', hasOutput: false }),
    ]);
    // read_task_output answers the task with its status, no lines, and why.
    expect(readWhileRunning).toMatchObject({ task: { type: 'local_agent', status: 'running' }, tail: [], stall: undefined, notes: [SUBAGENT_NO_OUTPUT_NOTE] });

    const after = await shownTasks(sessionId);
    expect(after.map((task) => [task.description, task.status, task.reason])).toEqual([
      ['Check web/ for XSS', 'completed', ''],
      ['Review the migrations', 'failed', ''],
      ['Run the e2e suite', 'stopped', TURN_ENDED_REASON],
    ]);
    // One wake-up per sub-agent for a default subscription: subagent_finished, never also a task_failed.
    expect(events.filter((event) => event.type === 'subagent_finished').map((event) => event.type === 'subagent_finished' && event.status)).toEqual([
      'completed',
      'failed',
    ]);
    const [completed, failed, stopped] = after;
    expect(await subjects(completed!.id)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FINISHED.subject]);
    expect(await subjects(failed!.id)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FINISHED.subject]);
    // Its progress is a sign of life for the watchers' stall (task_output), like a command's output.
    expect(await subjects(stopped!.id)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_OUTPUT.subject, SessionEvents.TASK_FINISHED.subject]);
  });
});
