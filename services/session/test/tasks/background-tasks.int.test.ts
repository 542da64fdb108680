/**
 * Background tasks against real PostgreSQL and a real shell: start, output, end and their outbox
 * events; read_task_output and the tasks on a session's view, also from a second replica (its own
 * database client, runner and host); a replica's death, the bound on kept output and the sweep.
 * Relay time is a ManualClock moved by hand, so the stall and the lease are counted without sleeping.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@relay/clock';
import { isAppError } from '@relay/errors';
import { SessionState, type Session as SessionMessage } from '@relay/proto/relay/session/v1/session';
import { createLogger } from '@relay/telemetry';
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { commandEnv } from '../../src/config.ts';
import { readTaskOutput } from '../../src/app/tasks/read-task-output.ts';
import { nodeRealFolders } from '../../src/adapters/fs/real-folders.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { TASK_LEASE_MS, TASK_OUTPUT_KEPT_BYTES, TASK_OUTPUT_KEPT_MS } from '../../src/domain/tasks/task.ts';
import { BackgroundTasks, RESTARTED_REASON, RUNNER_GONE_REASON, STOPPED_REASON, TaskStartRefused } from '../../src/adapters/tasks/background-tasks.ts';
import { bubblewrapSandbox } from '../../src/adapters/tasks/bubblewrap-sandbox.ts';
import { PrismaTaskStore } from '../../src/adapters/store/prisma-task-store.ts';
import { withMemberStates, withTasks } from '../../src/adapters/grpc/session-tasks.ts';
import { API_MESSAGES } from '../../src/adapters/grpc/wire/api-messages.ts';
import { until } from '../until.ts';

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));
const logger = createLogger({ name: 'background-tasks-test', level: 'silent' });
const clock = new ManualClock('2026-11-30T10:00:00.000Z');
/** What the session service's environment holds besides the allowlisted variables. */
const SERVICE_SECRETS = {
  DATABASE_URL: 'postgresql://relay:db-secret@db:5432/relay_session',
  NATS_URL: 'nats://bus:4222',
  NATS_PASSWORD: 'bus-secret',
  CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-oauth-secret',
  RELAY_OPENAI_API_KEY: 'openai-secret',
};

let database: TestDatabase;
let prisma: PrismaClient;
let store: PrismaTaskStore;
let tasks: BackgroundTasks;
/** A second replica: its own client and store, and its own runner on another host. */
let otherPrisma: PrismaClient;
let otherStore: PrismaTaskStore;
let otherTasks: BackgroundTasks;
let workDir: string;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  store = new PrismaTaskStore(prisma, API_MESSAGES);
  otherPrisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  otherStore = new PrismaTaskStore(otherPrisma, API_MESSAGES);
  workDir = await mkdtemp(join(tmpdir(), 'relay-task-cwd-'));
  // The service's own environment holds secrets; a command is given only the allowlist of commandEnv.
  const serviceEnv = { ...process.env, ...SERVICE_SECRETS };
  const place = {
    env: commandEnv(serviceEnv),
    allowedRoots: [await realpath(tmpdir())],
    folders: nodeRealFolders,
    sandbox: bubblewrapSandbox({ path: process.env.PATH }),
  };
  tasks = new BackgroundTasks({ store, clock, logger, host: hostname(), runnerId: 'runner-now', ...place });
  otherTasks = new BackgroundTasks({ store: otherStore, clock, logger, host: 'other-pod', runnerId: 'runner-other', ...place });
  userId = randomUUID();
  await prisma.user.create({ data: { id: userId, name: 'Ada', createdAt: clock.now() } });
}, 60_000);

afterEach(async () => {
  await Promise.all([tasks.stopAll(), otherTasks.stopAll()]);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await otherPrisma?.$disconnect();
  await database?.drop();
  await rm(workDir, { recursive: true, force: true });
});

async function newSession(state: 'idle' | 'running_turn' = 'idle'): Promise<string> {
  const id = randomUUID();
  await prisma.session.create({
    data: {
      id,
      userId,
      title: 'Build',
      provider: 'script',
      model: 'script-1',
      origin: 'hosted',
      state,
      cwd: workDir,
      createdAt: clock.now(),
      lastActivityAt: clock.now(),
    },
  });
  return id;
}

const untilEnded = (taskId: string) =>
  until(async () => {
    const row = await prisma.task.findUniqueOrThrow({ where: { id: taskId } });
    return row.status !== 'running' ? row : undefined;
  }, `task ${taskId} ended`);

async function events(taskId: string): Promise<{ subject: string; payload: Record<string, unknown> }[]> {
  const rows = await prisma.outboxMessage.findMany({ orderBy: { createdAt: 'asc' } });
  return rows
    .map((row) => ({ subject: row.subject, payload: row.payload as Record<string, unknown> }))
    .filter((row) => (row.payload.task as { id?: string } | undefined)?.id === taskId);
}

/** read_task_output on this replica, or with `on` another one. */
const read = (sessionId: string, taskId: string, lines = 0, on: PrismaTaskStore = store) =>
  readTaskOutput({ tasks: on, output: on, relay: { name: 'desk' }, quietAfterMinutes: 10 }, { userId, sessionId, taskId, lines, now: clock.now() });

const sessionMessage = (id: string, state: SessionState): SessionMessage => ({ id, state, tasks: [] }) as unknown as SessionMessage;
const tasksDeps = (on: PrismaTaskStore = store) => ({ store: on, output: on, now: () => clock.now(), quietAfterMinutes: async () => 10 });

describe('a background task', () => {
  it('runs in the session folder, captures its output and completes with exit code 0 and its events', async () => {
    const sessionId = await newSession();
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'pwd; echo done' });
    expect(task).toMatchObject({ id: expect.stringMatching(/^task_[0-9a-f]{16}$/), status: 'running', type: 'local_bash', description: 'pwd; echo done' });
    const ended = await untilEnded(task.id);
    expect(ended).toMatchObject({ status: 'completed', exitCode: 0, reason: '' });
    const output = await read(sessionId, task.id);
    expect(output.tail).toEqual([workDir, 'done']);
    expect(output.stall).toBeUndefined();
    expect((await events(task.id)).map((event) => event.subject)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FINISHED.subject]);
    const [started] = await events(task.id);
    expect(started!.payload).toMatchObject({ sessionId, userId, task: { id: task.id, status: 'running', type: 'local_bash' } });
    // Its output time is announced once (task_output, at most once a minute), for the watchers' stalled rule.
    const announced = (await prisma.outboxMessage.findMany({ where: { subject: SessionEvents.TASK_OUTPUT.subject } })).map(
      (row) => row.payload as Record<string, unknown>,
    );
    expect(announced.filter((payload) => payload.taskId === task.id)).toEqual([
      expect.objectContaining({ sessionId, userId, taskId: task.id, lastOutputAt: expect.any(String) }),
    ]);
  });

  it('a non-zero exit fails it, with task_failed', async () => {
    const sessionId = await newSession();
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'echo boom >&2; exit 3' });
    expect(await untilEnded(task.id)).toMatchObject({ status: 'failed', exitCode: 3 });
    expect((await events(task.id)).map((event) => event.subject)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FAILED.subject]);
    expect((await read(sessionId, task.id)).task).toMatchObject({ status: 'failed', exitCode: 3 });
  });

  it('starts with the allowlisted environment only: no database URL, bus or provider credential of the service', async () => {
    const sessionId = await newSession();
    // Set on the test process too: a command that inherited the process's environment would print it.
    process.env['RELAY_TEST_SERVICE_TOKEN'] = 'rly_u_inherited-secret';
    try {
      const task = await tasks.start({ sessionId, cwd: workDir, command: 'env' });
      await untilEnded(task.id);
      const variables = (await read(sessionId, task.id, 1000)).tail.map((line) => line.split('=')[0] ?? '');
      expect(variables).toContain('PATH');
      expect(variables.filter((name) => /DATABASE|NATS|TOKEN|KEY|PASSWORD|SECRET/i.test(name))).toEqual([]);
    } finally {
      delete process.env['RELAY_TEST_SERVICE_TOKEN'];
    }
  });

  it('refuses a folder whose real path leads out of the allowed roots (a symbolic link), or into a .relay folder; nothing runs', async () => {
    const link = join(workDir, 'etc-link');
    await symlink('/etc', link);
    await mkdir(join(workDir, '.relay'), { recursive: true });
    const sessionId = await newSession();
    await expect(tasks.start({ sessionId, cwd: link, command: 'touch ran' })).rejects.toThrow(
      new TaskStartRefused(`cwd '/etc' is outside the folders sessions on this relay may use (${await realpath(tmpdir())}).`),
    );
    await expect(tasks.start({ sessionId, cwd: join(workDir, '.relay'), command: 'touch ran' })).rejects.toThrow(TaskStartRefused);
    expect(await prisma.task.count({ where: { sessionId } })).toBe(0);
  });

  it('a task that goes quiet: stall and health count relay minutes since its last output; the idle session is background_only', async () => {
    const sessionId = await newSession('idle');
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'echo "ok 1 - adds"; echo "not ok 2 - fails"; exec sleep 60' });
    const outputAt = clock.now();
    await until(async () => (await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).lastOutputAt !== null, 'the output is noted');
    await until(async () => (await read(sessionId, task.id)).tail.length === 2, 'both lines are in the file');
    clock.advance(14 * 60_000 + 30_000);

    const output = await read(sessionId, task.id);
    expect(output.stall).toEqual({ minutes: 14, since: outputAt, quiet: true, quietAfterMinutes: 10 });
    expect(output.counts).toEqual({ runner: 'node:test', passed: 1, failed: 1, skipped: 0, final: false });
    expect(output.task.status).toBe('running');

    const [shown] = await withTasks(tasksDeps(), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(shown!.state).toBe(SessionState.SESSION_STATE_BACKGROUND_ONLY);
    expect(shown!.tasks).toEqual([
      expect.objectContaining({
        id: task.id,
        status: 'running',
        hasOutput: true,
        health: { minutesSinceOutput: 14, quiet: true, quietAfterMinutes: 10 },
        counts: { runner: 'node:test', passed: 1, failed: 1, skipped: 0, final: false },
      }),
    ]);
    const [busy] = await withTasks(tasksDeps(), [sessionMessage(sessionId, SessionState.SESSION_STATE_RUNNING_TURN)]);
    expect(busy!.state).toBe(SessionState.SESSION_STATE_RUNNING_TURN);
    // As a group member in another session's read_session.
    const member = { id: sessionId, title: 'Build', role: 'member', archived: false };
    const idleOther = { ...member, id: await newSession('idle') };
    expect(
      await withMemberStates(tasksDeps(), [
        { ...member, state: SessionState.SESSION_STATE_IDLE },
        { ...idleOther, state: SessionState.SESSION_STATE_IDLE },
      ]),
    ).toEqual([
      { ...member, state: SessionState.SESSION_STATE_BACKGROUND_ONLY },
      { ...idleOther, state: SessionState.SESSION_STATE_IDLE },
    ]);

    await tasks.stopAll();
    expect(await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ status: 'stopped', reason: STOPPED_REASON });
    const [after] = await withTasks(tasksDeps(), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(after!.state).toBe(SessionState.SESSION_STATE_IDLE);
    expect(await withMemberStates(tasksDeps(), [{ ...member, state: SessionState.SESSION_STATE_IDLE }])).toEqual([
      { ...member, state: SessionState.SESSION_STATE_IDLE },
    ]);
    expect(after!.tasks[0]!.health).toBeUndefined();
  });

  it('credentials in the output are blanked', async () => {
    const sessionId = await newSession();
    const task = await tasks.start({
      sessionId,
      cwd: workDir,
      command: 'echo "Authorization: Bearer abcdefghijklmnop"; echo "push https://bot:hunter22@git.example.com/x.git"; echo AKIAIOSFODNN7EXAMPLE',
    });
    await untilEnded(task.id);
    const { tail } = await read(sessionId, task.id);
    expect(tail).toEqual(['Authorization: [redacted]', 'push https://bot:[redacted]@git.example.com/x.git', '[redacted]']);
    expect(tail.join('\n')).not.toMatch(/abcdefghijklmnop|hunter22|AKIAIOSFODNN7EXAMPLE/);
  });

  it('lines: repeated lines collapse, the tail is the end, truncated says there is more', async () => {
    const sessionId = await newSession();
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'echo first; for i in 1 2 3 4; do echo waiting; done; echo a; echo b' });
    await untilEnded(task.id);
    expect(await read(sessionId, task.id)).toMatchObject({ tail: ['first', 'waiting [×4]', 'a', 'b'], truncated: false });
    expect(await read(sessionId, task.id, 2)).toMatchObject({ tail: ['a', 'b'], truncated: true });
    await expect(read(sessionId, task.id, 1001)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT' });
  });

  it('output is kept for an hour after the end, then REMOTE_RELAY_NOT_FOUND; another user or session never sees it', async () => {
    const sessionId = await newSession();
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'echo bye' });
    await untilEnded(task.id);
    await expect(
      readTaskOutput(
        { tasks: store, output: store, relay: { name: 'desk' }, quietAfterMinutes: 10 },
        { userId: randomUUID(), sessionId, taskId: task.id, lines: 0, now: clock.now() },
      ),
    ).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    await expect(read(randomUUID(), task.id)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    clock.advance(60 * 60_000);
    expect((await read(sessionId, task.id)).tail).toEqual(['bye']);
    clock.advance(1);
    const refusal = await read(sessionId, task.id).catch((error: unknown) => error);
    expect(isAppError(refusal) && refusal.code).toBe('REMOTE_RELAY_NOT_FOUND');
    const [shown] = await withTasks(tasksDeps(), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(shown!.tasks).toEqual([]);
  });

  it('refuses a session folder that does not exist, and records nothing', async () => {
    const sessionId = await newSession();
    await expect(tasks.start({ sessionId, cwd: join(workDir, 'missing'), command: 'echo hi' })).rejects.toBeInstanceOf(TaskStartRefused);
    expect(await prisma.task.count({ where: { sessionId } })).toBe(0);
  });

  it('on restart, a task an earlier run of this host left running is failed with a reason and task_failed; its output stays', async () => {
    const sessionId = await newSession();
    const id = `task_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    await prisma.task.create({
      data: {
        id,
        sessionId,
        description: 'npm test',
        status: 'running',
        cwd: workDir,
        host: hostname(),
        runnerId: 'runner-before',
        pid: null,
        startedAt: clock.now(),
        outputBytes: 9,
      },
    });
    await prisma.taskOutputChunk.create({ data: { taskId: id, seq: 0, data: new Uint8Array(Buffer.from('building\n')), size: 9 } });
    expect(await tasks.recover()).toBe(1);
    expect(await prisma.task.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'failed', exitCode: null, reason: RESTARTED_REASON });
    expect((await events(id)).map((event) => event.subject)).toEqual([SessionEvents.TASK_FAILED.subject]);
    expect(await read(sessionId, id)).toMatchObject({ tail: ['building'], notes: [] });
  });
});

describe('across replicas', () => {
  it('a task started on one replica is read on another, while it runs and after it ended, with its health and counts', async () => {
    const sessionId = await newSession('idle');
    const task = await tasks.start({
      sessionId,
      cwd: workDir,
      command:
        'echo "ok 1 - adds"; echo "not ok 2 - fails"; while [ ! -e release ]; do sleep 0.05; done; echo "ok 3 - later"; echo "1..3"; echo "# tests 3"; echo "# pass 2"; echo "# fail 1"',
    });
    const running = await until(async () => {
      const output = await read(sessionId, task.id, 0, otherStore);
      return output.tail.length === 2 ? output : undefined;
    }, 'the other replica reads the first lines');
    expect(running).toMatchObject({
      task: { status: 'running' },
      tail: ['ok 1 - adds', 'not ok 2 - fails'],
      counts: { runner: 'node:test', passed: 1, failed: 1, final: false },
    });
    const [shown] = await withTasks(tasksDeps(otherStore), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(shown).toMatchObject({ state: SessionState.SESSION_STATE_BACKGROUND_ONLY, tasks: [{ id: task.id, hasOutput: true, health: { quiet: false } }] });

    await writeFile(join(workDir, 'release'), '');
    try {
      await untilEnded(task.id);
    } finally {
      await rm(join(workDir, 'release'), { force: true });
    }
    const ended = await read(sessionId, task.id, 0, otherStore);
    expect(ended).toMatchObject({ task: { status: 'completed', exitCode: 0 }, counts: { runner: 'node:test', passed: 2, failed: 1, final: true } });
  });

  it('a replica that dies: another fails its task once the lease ran out, with task_failed; the output stays readable; the dead runner, if it comes back, ends the process', async () => {
    const sessionId = await newSession('idle');
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'echo "step 1 done"; exec sleep 60' });
    await until(async () => (await read(sessionId, task.id, 0, otherStore)).tail.length === 1 || undefined, 'the output is in');
    // This replica stops renewing (it died); within the lease the other leaves the task alone.
    clock.advance(TASK_LEASE_MS - 1);
    await otherTasks.sweep();
    expect((await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).status).toBe('running');
    clock.advance(2);
    await otherTasks.sweep();
    expect(await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ status: 'failed', exitCode: null, reason: RUNNER_GONE_REASON });
    expect((await events(task.id)).map((event) => event.subject)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FAILED.subject]);
    expect(await read(sessionId, task.id, 0, otherStore)).toMatchObject({ task: { status: 'failed' }, tail: ['step 1 done'] });
    const [shown] = await withTasks(tasksDeps(otherStore), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(shown!.state).toBe(SessionState.SESSION_STATE_IDLE);

    // The runner was only stalled: its renewal finds the task taken and ends the process, whose end changes nothing.
    expect(tasks.runningTaskIds()).toContain(task.id);
    await tasks.renewLeases();
    await until(async () => !tasks.runningTaskIds().includes(task.id) || undefined, 'the process ended');
    expect(await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ status: 'failed', reason: RUNNER_GONE_REASON });
  });

  it("a live runner renews its lease: the other replica's sweep leaves its task running", async () => {
    const sessionId = await newSession();
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'exec sleep 60' });
    for (let i = 0; i < 4; i++) {
      clock.advance(TASK_LEASE_MS / 2);
      await tasks.renewLeases();
      await otherTasks.sweep();
    }
    expect((await prisma.task.findUniqueOrThrow({ where: { id: task.id } })).status).toBe('running');
  });

  it('a tracked sub-agent (local_agent) is held by the same lease: renewed while its runner lives, failed by another replica once it died, stopped with the relay', async () => {
    const sessionId = await newSession();
    const kept = await tasks.track({ sessionId, cwd: workDir, description: 'Check web/ for XSS' });
    expect(kept).toMatchObject({ type: 'local_agent', status: 'running', description: 'Check web/ for XSS', outputBytes: 0 });
    for (let i = 0; i < 3; i++) {
      clock.advance(TASK_LEASE_MS / 2);
      await tasks.renewLeases();
      await otherTasks.sweep();
    }
    expect((await prisma.task.findUniqueOrThrow({ where: { id: kept.id } })).status).toBe('running');
    // A runner that dies with its sub-agent: another replica fails it once the lease ran out.
    const orphan = await otherTasks.track({ sessionId, cwd: workDir, description: 'Review the migrations' });
    clock.advance(TASK_LEASE_MS + 1);
    await tasks.sweep();
    expect(await prisma.task.findUniqueOrThrow({ where: { id: orphan.id } })).toMatchObject({ status: 'failed', reason: RUNNER_GONE_REASON });
    await tasks.renewLeases();
    await tasks.stopAll();
    expect(await prisma.task.findUniqueOrThrow({ where: { id: kept.id } })).toMatchObject({ status: 'stopped', reason: STOPPED_REASON, exitCode: null });
    // Ends of sub-agents are task_finished whatever their status (the default subscription is woken by subagent_finished).
    expect((await events(kept.id)).map((event) => event.subject)).toEqual([SessionEvents.TASK_STARTED.subject, SessionEvents.TASK_FINISHED.subject]);
    await expect(tasks.track({ sessionId: randomUUID(), cwd: workDir, description: 'gone' })).rejects.toBeInstanceOf(TaskStartRefused);
  });

  it('a long output keeps its end within the bound: truncated, with a note that only the end exists; the final counts are read', async () => {
    const sessionId = await newSession();
    // About 1.2 MB of numbered lines, then a vitest summary.
    const task = await tasks.start({ sessionId, cwd: workDir, command: 'seq 1 160000 | sed "s/^/line /"; printf "      Tests  3 passed (3)\\n"' });
    await untilEnded(task.id);
    const row = await prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.outputDropped).toBe(true);
    expect(Number(row.outputBytes)).toBeGreaterThan(1_000_000);
    const kept = await prisma.taskOutputChunk.aggregate({ where: { taskId: task.id }, _sum: { size: true } });
    expect(kept._sum.size).toBeLessThanOrEqual(TASK_OUTPUT_KEPT_BYTES);
    const output = await read(sessionId, task.id, 3, otherStore);
    expect(output).toMatchObject({
      tail: ['line 159999', 'line 160000', '      Tests  3 passed (3)'],
      truncated: true,
      counts: { runner: 'vitest', passed: 3, final: true },
    });
    expect(output.notes).toEqual([expect.stringMatching(/^Only the end of the output exists: the relay keeps the last 512 KB of the 1\.\d MB written\.$/)]);
    const all = await read(sessionId, task.id, 1000, otherStore);
    expect(all.tail[0]).toMatch(/^line \d+$/);
  });

  it('the sweep removes the output of tasks that ended over an hour ago, and only theirs', async () => {
    const sessionId = await newSession();
    const old = await tasks.start({ sessionId, cwd: workDir, command: 'echo old' });
    await untilEnded(old.id);
    clock.advance(TASK_OUTPUT_KEPT_MS / 2);
    const recent = await tasks.start({ sessionId, cwd: workDir, command: 'echo recent' });
    await untilEnded(recent.id);
    clock.advance(TASK_OUTPUT_KEPT_MS / 2 + 1);
    await otherTasks.sweep();
    expect(await prisma.taskOutputChunk.count({ where: { taskId: old.id } })).toBe(0);
    expect(await prisma.task.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({ outputRemoved: true });
    await expect(read(sessionId, old.id)).rejects.toMatchObject({ code: 'REMOTE_RELAY_NOT_FOUND' });
    expect((await read(sessionId, recent.id, 0, otherStore)).tail).toEqual(['recent']);
    const [shown] = await withTasks(tasksDeps(otherStore), [sessionMessage(sessionId, SessionState.SESSION_STATE_IDLE)]);
    expect(shown!.tasks.map((task) => task.id)).toEqual([recent.id]);
  });
});
