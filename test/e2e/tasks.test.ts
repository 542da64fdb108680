// Issue 4 end to end: a script session starts `npm test`-like shell work (`node --test` on a tiny suite that
// holds its last test until the test releases it) with the `task` step; a watcher session reads the run's counts
// through relay_tool read_task_output while it runs, and again once it ended.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';

let relay: Relay;
let folder: string;

const SUITE = `import { test } from 'node:test';
import assert from 'node:assert';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
test('compiles', () => assert.ok(true));
test('links', () => assert.equal(2 + 2, 5));
test('waits for release', async () => {
  while (!existsSync('release')) await sleep(50);
});
`;

async function finish(sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=120`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (!['queued', 'running', 'waiting_for_answer'].includes(result.body.status)) return result.body;
  }
}

async function run(title: string, text: string, cwd?: string): Promise<{ id: string; turn: any }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title, text, ...(cwd ? { cwd } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, turn: await finish(created.body.session.id, created.body.message_id) };
}

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The watcher's turn: read_task_output through relay_tool; with no reply step, its reply is the result as JSON. */
async function watch(sessionId: string, taskId: string): Promise<any> {
  const { turn } = await run('Watcher', `relay_tool ${JSON.stringify({ action: 'read_task_output', relay: 'this', session: sessionId, task_id: taskId, lines: 20 })}`);
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return JSON.parse(turn.reply.text);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-e2e-build-'));
  await writeFile(join(folder, 'build.test.mjs'), SUITE);
  relay = await startRelay({ name: 'desk', env: { RELAY_AGENT_SESSIONS: 'on' } });
});

afterAll(async () => {
  await relay?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe('a background test run watched from another session', () => {
  let builder: string;
  let taskId: string;

  it('the task step starts the run in the session folder and the turn ends while it keeps running', async () => {
    const started = await run('Builder', 'task node --test\nreply started {{result.taskId}} {{result.status}}', folder);
    builder = started.id;
    expect(started.turn.status, JSON.stringify(started.turn)).toBe('done');
    const [, id, status] = started.turn.reply.text.split(' ');
    expect(status).toBe('running');
    taskId = id;
    expect(taskId).toMatch(/^task_/);

    const read = await until(async () => {
      const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
      return body.session.tasks[0]?.counts?.failed === 1 ? body : undefined;
    }, 'the run has counts');
    expect(read.state).toBe('background_only');
    expect(read.session.tasks).toEqual([
      expect.objectContaining({ taskId, description: 'node --test', type: 'local_bash', status: 'running', exitCode: null, output: true, health: expect.objectContaining({ quiet: false, quietAfterMinutes: 10 }) }),
    ]);
  });

  it('a watcher reads the counts so far with read_task_output while the run goes on', async () => {
    const result = await watch(builder, taskId);
    expect(result).toMatchObject({
      ok: true,
      relay: 'desk',
      task: { id: taskId, description: 'node --test', type: 'local_bash', status: 'running', exitCode: null },
      stall: { quiet: false, quietAfterMinutes: 10 },
      counts: { runner: 'node:test', passed: 1, failed: 1, skipped: 0, final: false },
      truncated: true,
    });
    expect(result.tail).toHaveLength(20);
    expect(result.summary).toMatch(new RegExp(`^read_task_output → desk session \\S+ task \\S+: 20 lines, running, .*1 passed, 1 failed$`));
  });

  it('once released, the run fails (a test failed), the session goes idle and the watcher reads the final counts', async () => {
    await writeFile(join(folder, 'release'), '');
    await until(async () => {
      const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
      return body.session.tasks[0]?.status === 'failed' ? body : undefined;
    }, 'the run ended');
    const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
    expect(body.state).toBe('idle');
    expect(body.session.tasks[0]).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(body.session.tasks[0].health).toBeUndefined();

    const result = await watch(builder, taskId);
    expect(result).toMatchObject({ ok: true, task: { status: 'failed', exitCode: 1 }, counts: { runner: 'node:test', passed: 2, failed: 1, skipped: 0, final: true } });
    expect(result.stall).toBeUndefined();
    expect(result.tail.at(-1)).toMatch(/^# duration_ms /);
  });

  it('an unknown task and a bad lines answer refusals', async () => {
    const missing = await watch(builder, 'task_0000000000000000');
    expect(missing).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
    const { turn } = await run('Watcher', `relay_tool ${JSON.stringify({ action: 'read_task_output', relay: 'this', session: builder, task_id: taskId, lines: 1001 })}`);
    expect(JSON.parse(turn.reply.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});
