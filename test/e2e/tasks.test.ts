/* eslint-disable no-control-regex -- the checks look for escape characters left in a task's output */
// Issue 4 end to end: a script session starts `npm test` with the `task` step in a folder whose test script
// (fixtures/vitest-like-run.mjs) prints a vitest run over a second or so, in colour, with a credential and a
// repeated line, and holds before its last file until the test releases it. A watcher — another session whose
// agent calls relay_tool through the gateway's MCP endpoint — reads the run's counts with read_task_output while
// it runs (final: false) and once it ended (final: true). The relay runs a virtual clock 30 times faster than real
// time and its quiet setting for tasks is changed through the user API, so a task that stops writing goes quiet
// within seconds, against that setting.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishAllowingCommands } from '../harness/script-turns.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

let relay: Relay;
let folder: string;

async function run(title: string, text: string, cwd?: string): Promise<{ id: string; turn: any }> {
  const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title, text, ...(cwd ? { cwd } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, turn: await finishAllowingCommands(relay, created.body.session.id, created.body.message_id) };
}

/** The watcher's turn: read_task_output through relay_tool; with no reply step, its reply is the result as JSON. */
async function watch(sessionId: string, taskId: string, lines = 20): Promise<any> {
  const { turn } = await run(
    'Watcher',
    `relay_tool ${JSON.stringify({ action: 'read_task_output', relay: 'this', session: sessionId, task_id: taskId, lines })}`,
  );
  expect(turn.status, JSON.stringify(turn)).toBe('done');
  return JSON.parse(turn.reply.text);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-e2e-build-'));
  await copyFile(new URL('./fixtures/vitest-like-run.mjs', import.meta.url), join(folder, 'run-tests.mjs'));
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'build', version: '1.0.0', private: true, scripts: { test: 'node run-tests.mjs' } }));
  relay = await startRelay({ name: 'desk', env: { RELAY_AGENT_SESSIONS: 'on', RELAY_CLOCK: `${new Date().toISOString()}@30x` } });
  // Long enough that the build below never goes quiet while the test looks at it (a relay minute is 2 s here).
  await setQuietMinutes(1440);
});

async function setQuietMinutes(minutes: number): Promise<void> {
  const changed = await relay.api('PATCH', '/api/v1/settings', { task_quiet_minutes: minutes });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
}

afterAll(async () => {
  await relay?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe('npm test in the background, watched from another session', () => {
  let builder: string;
  let taskId: string;

  it('the task step starts the run in the session folder and the turn ends while it keeps running: background_only', async () => {
    const started = await run('Builder', 'task npm test\nreply started {{result.taskId}} {{result.status}}', folder);
    builder = started.id;
    expect(started.turn.status, JSON.stringify(started.turn)).toBe('done');
    const [, id, status] = started.turn.reply.text.split(' ');
    expect(status).toBe('running');
    taskId = id;
    expect(taskId).toMatch(/^task_/);

    const read = await until('the run has counts', async () => {
      const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
      return body.session.tasks[0]?.counts?.failed === 1 ? body : undefined;
    });
    expect(read.state).toBe('background_only');
    expect(read.session.tasks).toEqual([
      expect.objectContaining({
        taskId,
        description: 'npm test',
        type: 'local_bash',
        status: 'running',
        exitCode: null,
        output: true,
        health: expect.objectContaining({ quiet: false, quietAfterMinutes: 1440 }),
        counts: { runner: 'vitest', passed: 45, failed: 1, skipped: 0, final: false },
      }),
    ]);
    const { body: listed } = await relay.api('GET', '/api/v1/sessions');
    expect(listed.sessions.find((session: any) => session.id === builder)).toMatchObject({ state: 'background_only' });
  });

  it('the watcher reads the counts so far with read_task_output while the run goes on, as plain text with credentials blanked', async () => {
    const result = await watch(builder, taskId, 6);
    expect(result).toMatchObject({
      ok: true,
      relay: 'desk',
      task: { id: taskId, description: 'npm test', type: 'local_bash', status: 'running', exitCode: null },
      stall: { quiet: false, quietAfterMinutes: 1440 },
      counts: { runner: 'vitest', passed: 45, failed: 1, skipped: 0, final: false },
      truncated: true,
    });
    expect(result.tail).toHaveLength(6);
    expect(result.tail).toContain(' ❯ src/deploy.test.ts (5 tests | 1 failed) 88ms');
    const text = result.tail.join('\n');
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/s3cr3t-pw|eyJhbGci/);
    expect(result.summary).toMatch(new RegExp(`^read_task_output → desk session \\S+ task \\S+: 6 lines, running, .*45 passed, 1 failed$`));
  });

  it('once released, the run fails (a test failed: exit code 1), the session goes idle, and the watcher reads the final counts', async () => {
    await writeFile(join(folder, 'release'), '');
    await until('the run ended', async () => {
      const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
      return body.session.tasks[0]?.status === 'failed' ? body : undefined;
    });
    const { body } = await relay.api('GET', `/api/v1/sessions/${builder}`);
    expect(body.state).toBe('idle');
    expect(body.session.tasks[0]).toMatchObject({
      status: 'failed',
      exitCode: 1,
      counts: { runner: 'vitest', passed: 54, failed: 1, skipped: 0, final: true },
    });
    expect(body.session.tasks[0].health).toBeUndefined();

    const result = await watch(builder, taskId, 50);
    expect(result).toMatchObject({
      ok: true,
      task: { status: 'failed', exitCode: 1 },
      counts: { runner: 'vitest', passed: 54, failed: 1, skipped: 0, final: true },
      truncated: false,
    });
    expect(result.stall).toBeUndefined();
    expect(result.tail).toEqual(
      expect.arrayContaining([
        '> build@1.0.0 test',
        '> node run-tests.mjs',
        '     → fetch https://deploy:[redacted]@registry.example.com/v2/ failed: 401 (Authorization: [redacted]',
        'stdout | waiting for the mock registry [×3]',
        '      Tests  1 failed | 54 passed (55)',
      ]),
    );
    expect(result.tail.join('\n')).not.toMatch(/\u001b|s3cr3t-pw|eyJhbGci/);
  });

  it("the user reads the same end of the output through the user API (the console's task tail); another user cannot", async () => {
    const own = await relay.api('GET', `/api/v1/sessions/${builder}/tasks/${taskId}/output?lines=50`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({
      session: builder,
      task: { id: taskId, status: 'failed', exitCode: 1 },
      counts: { passed: 54, failed: 1, final: true },
      truncated: false,
    });
    expect(own.body.tail).toContain('      Tests  1 failed | 54 passed (55)');
    expect(own.body.tail.join('\n')).not.toMatch(/\u001b|s3cr3t-pw|eyJhbGci/);
    expect((await relay.api('GET', `/api/v1/sessions/${builder}/tasks/${taskId}/output?lines=0`)).status).toBe(400);

    const other = await relay.api('POST', '/api/v1/users', { name: 'Bo' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const theirs = await fetch(`${relay.gatewayUrl}/api/v1/sessions/${builder}/tasks/${taskId}/output`, {
      headers: { authorization: `Bearer ${other.body.token}` },
    });
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as { code: string }).code).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it("a task that stops writing goes quiet against the relay's quiet setting: health on the session, stall for the watcher", async () => {
    await setQuietMinutes(2);
    const started = await run('Deploy', 'task echo "waiting for the registry"; exec sleep 600\nreply started {{result.taskId}}', folder);
    const quietTaskId = started.turn.reply.text.split(' ')[1];
    const { body } = await until('the task is quiet', async () => {
      const read = await relay.api('GET', `/api/v1/sessions/${started.id}`);
      return read.body.session.tasks[0]?.health?.quiet === true ? read : undefined;
    });
    expect(body.state).toBe('background_only');
    expect(body.session.tasks[0]).toMatchObject({ taskId: quietTaskId, status: 'running', health: { quiet: true, quietAfterMinutes: 2 } });
    expect(body.session.tasks[0].health.minutesSinceOutput).toBeGreaterThanOrEqual(2);

    const result = await watch(started.id, quietTaskId);
    expect(result).toMatchObject({
      ok: true,
      task: { status: 'running' },
      stall: { quiet: true, quietAfterMinutes: 2 },
      tail: ['waiting for the registry'],
      truncated: false,
    });
    expect(result.stall.minutes).toBeGreaterThanOrEqual(2);
    expect(result.summary).toMatch(new RegExp(`: 1 line, running, last output ${result.stall.minutes} min ago$`));
    expect(result).not.toHaveProperty('counts');
  });

  it('an unknown task and a bad lines answer refusals', async () => {
    const missing = await watch(builder, 'task_0000000000000000');
    expect(missing).toMatchObject({ ok: false, code: 'REMOTE_RELAY_NOT_FOUND' });
    const { turn } = await run(
      'Watcher',
      `relay_tool ${JSON.stringify({ action: 'read_task_output', relay: 'this', session: builder, task_id: taskId, lines: 1001 })}`,
    );
    expect(JSON.parse(turn.reply.text)).toMatchObject({ ok: false, code: 'REMOTE_RELAY_INVALID_INPUT' });
  });
});
