// Issue 42: an MCP task outlives the gateway replica that ran it. Two gateway replicas share one relay; a 2026-07-28
// client of the Tasks extension starts its calls as tasks on the second. That replica is killed (-9) while a task-run
// `send` waits for its reply: once the lease has run out (the relay's virtual clock moved past it, never slept out)
// the first replica takes the task over and completes it with the reply, the target session holding the one message.
// Killed while a task-run `create_session` waits on its card, the task is taken over waiting on the same card; the
// person's Allow through the user API then creates one session, whose command runs once. A card-gated write that is not
// made again ends failed, saying it may or may not have taken effect, and acts on no later Allow. On SIGTERM the
// replica hands its task over at once, with no lease to wait out.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@relay/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

const TASKS = 'io.modelcontextprotocol/tasks';
/** The task lease (relay clock, mcp-task-runner.ts) and a second: past it a killed replica's tasks are taken over. */
const PAST_THE_LEASE_MS = 61_000;

let relay: Relay;
let db: pg.Client;
let folder: string;
/** The second gateway replica, which the client's calls go to and which stops; the first takes over. */
let second: ReturnType<Relay['services']['gateway']['replica']>;
let secondUrl: string;
let token: string;
let ids = 0;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-task-taken-over-'));
  // A virtual clock at the real rate: leases and the agents' timers are skipped (jumpTo), never slept out.
  relay = await startRelay({ name: 'takeover', env: { RELAY_CLOCK: new Date().toISOString() } });
  expect((await relay.api('PATCH', '/api/v1/settings', { max_wait_seconds: 900, max_turn_minutes: 60 })).status).toBe(200);
  ({ token } = await relay.createExternalSession('Tasks client'));
  const port = await freePort();
  secondUrl = `http://127.0.0.1:${port}`;
  second = relay.services.gateway.replica(port);
  await startSecond();
  db = new pg.Client({ connectionString: relay.databaseUrls.session });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await second?.stop();
  await relay?.stop();
  await rm(folder, { recursive: true, force: true });
});

async function startSecond(): Promise<void> {
  second.start();
  await until('the second gateway answering /readyz', async () => ((await fetch(`${secondUrl}/readyz`).catch(() => undefined))?.ok ? true : undefined));
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e-tasks', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

/** One 2026-07-28 request of the tasks client to the gateway at `gatewayUrl`; its JSON-RPC result. */
async function request(gatewayUrl: string, method: string, params: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...((params.name ?? params.taskId) === undefined ? {} : { 'mcp-name': String(params.name ?? params.taskId) }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: (ids += 1), method, params: { ...params, _meta: ENVELOPE } }),
  });
  const answer = (await response.json()) as { result?: unknown; error?: unknown };
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  return answer.result;
}

/** relay_tool's call `args` started as a task on the second replica; the task's id. */
async function startOnSecond(args: Record<string, unknown>): Promise<string> {
  const created = await request(secondUrl, 'tools/call', { name: 'relay_tool', arguments: args });
  expect(created).toMatchObject({ resultType: 'task', task: { status: 'working' } });
  return created.task.taskId as string;
}

type TaskRow = { status: string; runner_id: string; progress_json: string; card_id: string; lease_expires_at: Date; updated_at: Date };
const taskRow = async (taskId: string): Promise<TaskRow> => (await db.query<TaskRow>('SELECT * FROM mcp_tasks WHERE id = $1', [taskId])).rows[0]!;
const logs = () => `${relay.logs()}\n--- second gateway\n${second.output}`;

/** The task's row once `check` holds for it. */
const rowWhen = (what: string, taskId: string, check: (row: TaskRow) => boolean) =>
  until(
    what,
    async () => {
      const row = await taskRow(taskId);
      return check(row) ? row : undefined;
    },
    { detail: logs },
  );

/** The task, as the first replica's tasks/get shows it, once its status is `status`. */
const reaches = (taskId: string, status: string) =>
  until(
    `the task ${status}`,
    async () => {
      const task = await request(relay.gatewayUrl, 'tasks/get', { taskId });
      return task.status === status ? task : undefined;
    },
    { detail: logs },
  );

/** A worker that has answered its first message, and will take its reply to the next 300 s of relay time. */
async function idleWorker(title: string): Promise<string> {
  const worker = await scriptSession(relay, title, 'reply ready');
  await finish(relay, worker.id, worker.messageId);
  return worker.id;
}

/** When the worker's 300 s wait step ends (relay clock), once its turn runs it. */
const waitEnds = (workerId: string) =>
  until('the worker’s turn waiting its 5 minutes', async () => {
    const { rows } = await db.query<{ until: string }>(
      "SELECT resume_point->>'until' AS until FROM turns WHERE session_id = $1 AND resume_point->>'until' IS NOT NULL",
      [workerId],
    );
    return rows[0]?.until;
  });

/** The user messages of a session that carry `text`. */
const messagesWith = async (sessionId: string, text: string) =>
  ((await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.messages as { role: string; text: string }[]).filter((message) =>
    message.text.includes(text),
  );

const textOf = (result: { content: { text: string }[] }) => JSON.parse(result.content[0]!.text) as Record<string, unknown>;

it('completes a send whose replica was killed mid-wait through the other replica: one message, the reply as its result', async () => {
  const worker = await idleWorker('Worker');
  const taskId = await startOnSecond({ action: 'send', relay: 'this', session: worker, text: 'wait 300\nreply pong', wait_seconds: 900 });
  const ends = await waitEnds(worker);
  // The message sent, recorded in the task before the replica dies.
  const running = await rowWhen('the send recorded made', taskId, (row) => JSON.parse(row.progress_json || '{}').send?.outcome !== undefined);

  await second.kill();
  await relay.jumpTo(new Date(relay.now().getTime() + PAST_THE_LEASE_MS));
  const taken = await rowWhen('the task taken over', taskId, (row) => row.runner_id !== '' && row.runner_id !== running.runner_id);
  expect(taken.status).toBe('working');

  await relay.jumpTo(new Date(Date.parse(ends) + 1_000));
  const done = await reaches(taskId, 'completed');
  expect(textOf(done.result)).toMatchObject({ ok: true, status: 'done', reply: { text: 'pong' } });
  expect(await messagesWith(worker, 'wait 300')).toHaveLength(1);
});

it('takes over a create_session waiting on its card: the same card, and after the person’s Allow one session whose command ran once', async () => {
  await startSecond();
  const title = 'Made once';
  const taskId = await startOnSecond({
    action: 'create_session',
    relay: 'this',
    provider: 'script',
    title,
    cwd: folder,
    text: 'task echo ran >> ran.txt\nreply command {{result.status}}',
    wait_seconds: 600,
  });
  const waiting = await rowWhen('the task waiting on its card', taskId, (row) => row.status === 'input_required');

  await second.kill();
  await relay.jumpTo(new Date(relay.now().getTime() + PAST_THE_LEASE_MS));
  // Taken over, the call raised its card again: the same one, still the person's to decide.
  const taken = await rowWhen(
    'the task taken over, waiting on its card',
    taskId,
    (row) => row.runner_id !== '' && row.runner_id !== waiting.runner_id && row.status === 'input_required',
  );
  expect(taken.card_id).toBe(waiting.card_id);
  expect(((await relay.api('GET', '/api/v1/cards?pending=1')).body.cards as { title: string }[]).filter((card) => card.title.includes(title))).toHaveLength(1);

  expect((await relay.api('POST', `/api/v1/cards/${waiting.card_id}`, { decision: 'allow' })).status).toBe(200);
  // The new session's command asks its owner too.
  const created = await until('the one session created', async () =>
    ((await relay.api('GET', '/api/v1/sessions')).body.sessions as { id: string; title: string }[]).find((session) => session.title === title),
  );
  const commandCard = await until('the command’s card', async () => (await relay.api('GET', `/api/v1/cards?session=${created.id}&pending=1`)).body.cards?.[0]);
  expect((await relay.api('POST', `/api/v1/cards/${commandCard.id}`, { decision: 'allow' })).status).toBe(200);

  const done = await reaches(taskId, 'completed');
  expect(textOf(done.result)).toMatchObject({ ok: true, status: 'done', reply: { text: expect.stringMatching(/^command /) } });
  expect(((await relay.api('GET', '/api/v1/sessions')).body.sessions as { title: string }[]).filter((session) => session.title === title)).toHaveLength(1);
  expect(await until('the command’s line', async () => (await readFile(join(folder, 'ran.txt'), 'utf8').catch(() => '')) || undefined)).toBe('ran\n');
});

it('ends visibly a card-gated write whose replica was killed: failed, saying it may or may not have taken effect, and a later Allow changes nothing', async () => {
  await startSecond();
  const target = await idleWorker('Kept title');
  // A session this client did not start: renaming it takes the person's Allow, and update_session is not made again.
  const taskId = await startOnSecond({ action: 'update_session', relay: 'this', session: target, title: 'Never renamed' });
  const waiting = await rowWhen('the task waiting on its card', taskId, (row) => row.status === 'input_required');

  await second.kill();
  await relay.jumpTo(new Date(relay.now().getTime() + PAST_THE_LEASE_MS));
  const failed = await reaches(taskId, 'failed');
  expect(failed.statusMessage).toContain('update_session is not made again by another gateway: it may or may not have taken effect');
  expect((await relay.api('POST', `/api/v1/cards/${waiting.card_id}`, { decision: 'allow' })).status).toBe(200);
  const title = async () => (await relay.api('GET', `/api/v1/sessions/${target}`)).body.session.title;
  expect(await title()).toBe('Kept title');
  await relay.settled();
  expect(await title()).toBe('Kept title');
  expect(await request(relay.gatewayUrl, 'tasks/get', { taskId })).toMatchObject({ status: 'failed' });
});

it('hands a task over on SIGTERM at once: the other replica finishes it, no lease waited out', async () => {
  await startSecond();
  const worker = await idleWorker('Handed-over worker');
  const taskId = await startOnSecond({ action: 'send', relay: 'this', session: worker, text: 'wait 300\nreply handed over', wait_seconds: 900 });
  const ends = await waitEnds(worker);
  const running = await rowWhen('the send recorded made', taskId, (row) => JSON.parse(row.progress_json || '{}').send?.outcome !== undefined);

  await second.stop();
  const taken = await rowWhen('the task taken over', taskId, (row) => row.runner_id !== '' && row.runner_id !== running.runner_id);
  // Claimed (relay clock) before the lease the stopped replica held ran out: nothing was waited out.
  expect(taken.updated_at.getTime()).toBeLessThan(running.lease_expires_at.getTime());

  await relay.jumpTo(new Date(Date.parse(ends) + 1_000));
  const done = await reaches(taskId, 'completed');
  expect(textOf(done.result)).toMatchObject({ ok: true, status: 'done', reply: { text: 'handed over' } });
  expect(await messagesWith(worker, 'wait 300')).toHaveLength(1);
});
