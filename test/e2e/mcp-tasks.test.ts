// Issue 42, item 3 end to end: a 2026-07-28 client that declares MCP's Tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663) gets every call that may hold as a task at once; tasks/get — answered by any gateway replica, from the
// session service — shows `send` working through a 5-minute turn, then completed with the result the call would have
// given; tasks/cancel really stops the call (a wait ends, a card-gated call acts on no later Allow); tasks/get,
// tasks/update and tasks/cancel serve the caller's own session only, and there is no tasks/list. The relay's clock is
// virtual: the 5 minutes pass with a jump of it (jumpTo), never by sleeping. The official 2.x client (2.4) negotiates
// the revision and sees the extension in the server's capabilities, but has no runtime for it (it refuses a result of
// type "task"), so the test sends the extension's requests itself, as a 2026 client does: each POST carrying its
// revision, client info and capabilities in its _meta.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { until } from '../harness/until.ts';

const TASKS = 'io.modelcontextprotocol/tasks';

let relay: Relay;
let client: Client;
let token: string;
/** The tasks client's own external session. */
let own: string;
let ids = 0;

beforeAll(async () => {
  relay = await startRelay({ name: 'desk', env: { RELAY_CLOCK: '2026-12-07T09:00:00Z' } });
  expect((await relay.api('PATCH', '/api/v1/settings', { max_wait_seconds: 900, max_turn_minutes: 60 })).status).toBe(200);
  ({ token, id: own } = await relay.createExternalSession('Tasks client'));
  client = new Client(
    { name: 'e2e-tasks', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { extensions: { [TASKS]: {} } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(relay.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});

afterAll(async () => {
  await client?.close();
  await relay?.stop();
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'e2e-tasks', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

/** One 2026-07-28 request to /mcp as the tasks client; its JSON-RPC result (an error fails the test). */
async function request(method: string, params: Record<string, unknown>): Promise<any> {
  const answer = (await rawRequest(token, method, params)) as { result?: unknown; error?: unknown };
  expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
  return answer.result;
}

/** One 2026-07-28 request to /mcp as the session whose token is given; its JSON-RPC answer. */
async function rawRequest(bearer: string, method: string, params: Record<string, unknown>): Promise<any> {
  const response = await fetch(relay.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      // The name header of each: the tool called, the task asked about.
      ...((params.name ?? params.taskId) === undefined ? {} : { 'mcp-name': String(params.name ?? params.taskId) }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: (ids += 1), method, params: { ...params, _meta: ENVELOPE } }),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return response.json();
}

/** The task `taskId` once its status is `status`, polled with tasks/get. */
function reaches(taskId: string, status: string): Promise<any> {
  return until(`the task ${status}`, async () => {
    const task = await request('tasks/get', { taskId });
    return task.status === status ? task : undefined;
  });
}

const textOf = (result: { content: { text: string }[] }) => JSON.parse(result.content[0]!.text) as Record<string, unknown>;

it('runs send as a task: answered at once, working through a 5-minute turn, then completed with the call’s result', async () => {
  const worker = await scriptSession(relay, 'Slow worker', 'reply ready');
  await finish(relay, worker.id, worker.messageId);

  expect(client.getServerCapabilities()?.extensions).toHaveProperty([TASKS]);
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'send', relay: 'this', session: worker.id, text: 'wait 300\nreply pong', wait_seconds: 900 },
  });
  expect(created).toMatchObject({ resultType: 'task', task: { status: 'working' } });
  const { taskId } = created.task as { taskId: string };

  // The worker's wait step under way: its end, on the relay clock, is kept with its turn.
  const db = new pg.Client({ connectionString: relay.databaseUrls.session });
  await db.connect();
  const ends = await until('the worker’s turn waiting its 5 minutes', async () => {
    const { rows } = await db.query<{ until: string }>(
      "SELECT resume_point->>'until' AS until FROM turns WHERE session_id = $1 AND resume_point->>'until' IS NOT NULL",
      [worker.id],
    );
    return rows[0]?.until;
  }).finally(() => db.end());
  expect((await request('tasks/get', { taskId })).status).toBe('working');
  await relay.jumpTo(new Date(Date.parse(ends) + 1_000));

  const done = await reaches(taskId, 'completed');
  expect(done.result.isError).toBe(false);
  expect(textOf(done.result)).toMatchObject({ ok: true, status: 'done', reply: { text: 'pong' } });
});

it('shows input_required while its card waits for the person, with the card’s page as a URL request, and goes on after Allow', async () => {
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'create_session', relay: 'this', provider: 'script', title: 'Task worker', text: 'reply pong', wait_seconds: 60 },
  });
  const { taskId } = created.task as { taskId: string };

  const waiting = await reaches(taskId, 'input_required');
  const card = await until('the card', async () =>
    ((await relay.api('GET', '/api/v1/cards?pending=1')).body.cards as { id: string; title: string }[]).find((one) => one.title.includes('Task worker')),
  );
  expect(waiting.inputRequests).toEqual({
    [`card-${card.id}`]: expect.objectContaining({
      method: 'elicitation/create',
      params: expect.objectContaining({ mode: 'url', url: `${relay.gatewayUrl}/cards/${card.id}` }),
    }),
  });
  expect((await relay.api('POST', `/api/v1/cards/${card.id}`, { decision: 'allow' })).status).toBe(200);

  const done = await reaches(taskId, 'completed');
  expect(textOf(done.result)).toMatchObject({ ok: true, status: 'done', reply: { text: 'pong' } });
});

/** A session's status as the console shows it; the tasks client's own is working while one of its calls is in flight. */
async function statusOf(sessionId: string): Promise<string> {
  return (await relay.api('GET', `/api/v1/sessions/${sessionId}`)).body.status.name;
}

it('cancels a wait: tasks/cancel ends the call itself, so its session stops working, and the task stays cancelled', async () => {
  const worker = await scriptSession(relay, 'Long worker', 'wait 600\nreply late');
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'wait', relay: 'this', session: worker.id, message_id: worker.messageId, wait_seconds: 900 },
  });
  const { taskId } = created.task as { taskId: string };
  // The call in flight: the client's session is working (the call's hold), as the console shows it.
  await until('the wait held as the session’s running turn', async () => ((await statusOf(own)) === 'working' ? true : undefined));

  expect(await request('tasks/cancel', { taskId })).toMatchObject({});
  expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  // The wait itself ended: its hold released, which only the call's end does.
  await until('the wait ended', async () => ((await statusOf(own)) === 'working' ? undefined : true));
  // The worker's turn goes on, untouched: a wait's cancel ends only the wait.
  expect(await statusOf(worker.id)).toBe('working');
  // A cancel of a task that has ended keeps its end.
  expect(await request('tasks/cancel', { taskId })).toMatchObject({});
  expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
});

it('cancels a call whose card waits: it changes nothing, even once the person allows the card afterwards', async () => {
  const target = await scriptSession(relay, 'Kept title', 'reply ready');
  await finish(relay, target.id, target.messageId);
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'update_session', relay: 'this', session: target.id, title: 'Never renamed' },
  });
  const { taskId } = created.task as { taskId: string };
  const waiting = await reaches(taskId, 'input_required');
  const cardId = Object.keys(waiting.inputRequests as object)[0]!.replace(/^card-/, '');

  expect(await request('tasks/cancel', { taskId })).toMatchObject({});
  expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  // The call that would have acted on the Allow has ended: its card is still the person's to decide, and changes nothing.
  expect((await relay.api('POST', `/api/v1/cards/${cardId}`, { decision: 'allow' })).status).toBe(200);
  const title = async () => (await relay.api('GET', `/api/v1/sessions/${target.id}`)).body.session.title;
  expect(await title()).toBe('Kept title');
  expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  expect(await title()).toBe('Kept title');
});

it('serves the extension for the caller’s own tasks only: another session can neither see, update nor cancel them, and there is no tasks/list', async () => {
  const worker = await scriptSession(relay, 'Watched worker', 'wait 600\nreply late');
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'wait', relay: 'this', session: worker.id, message_id: worker.messageId, wait_seconds: 900 },
  });
  const { taskId } = created.task as { taskId: string };
  const other = await relay.createExternalSession('A third client');
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
    expect(await rawRequest(other.token, method, { taskId, inputResponses: {} })).toMatchObject({
      error: { code: -32602, message: `No task ${taskId} of this session.` },
    });
  }
  // Still at work after the other session's cancel; its own client's update changes nothing either.
  expect(await request('tasks/update', { taskId, inputResponses: {} })).toMatchObject({});
  expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'working' });
  // SEP-2663 took tasks/list out: no client learns of tasks by listing them.
  expect(await rawRequest(token, 'tasks/list', {})).toMatchObject({ error: { code: -32601 } });
  await request('tasks/cancel', { taskId });
});

it('holds no response of a tasks client: a card-gated action runs as a task (its card an input_required URL request), a read answers at once', async () => {
  const target = await scriptSession(relay, 'Renamed by a task', 'reply ready');
  await finish(relay, target.id, target.messageId);
  // A session this client did not start: changing it takes the person's Allow.
  const created = await request('tools/call', {
    name: 'relay_tool',
    arguments: { action: 'update_session', relay: 'this', session: target.id, title: 'Renamed' },
  });
  expect(created).toMatchObject({ resultType: 'task', task: { status: 'working' } });
  const { taskId } = created.task as { taskId: string };
  const waiting = await reaches(taskId, 'input_required');
  const [requestKey] = Object.keys(waiting.inputRequests as object);
  const cardId = requestKey!.replace(/^card-/, '');
  expect(waiting.inputRequests[requestKey!]).toMatchObject({
    method: 'elicitation/create',
    params: { mode: 'url', url: `${relay.gatewayUrl}/cards/${cardId}` },
  });
  // The client's own answer is no decision: the task still waits for the person, the session unchanged.
  expect(await request('tasks/update', { taskId, inputResponses: { [requestKey!]: { action: 'accept' } } })).toMatchObject({});
  expect((await request('tasks/get', { taskId })).status).toBe('input_required');
  expect((await relay.api('POST', `/api/v1/cards/${cardId}`, { decision: 'deny' })).status).toBe(200);
  const done = await reaches(taskId, 'completed');
  expect(textOf(done.result)).toMatchObject({ ok: false });
  expect((await relay.api('GET', `/api/v1/sessions/${target.id}`)).body.session.title).toBe('Renamed by a task');

  const read = await request('tools/call', { name: 'relay_tool', arguments: { action: 'read_session', relay: 'this', session: target.id } });
  expect(read.resultType).not.toBe('task');
  expect(textOf(read)).toMatchObject({ ok: true });
});
