// Isolation between users end to end: a second user, and that user's agents, can neither see nor act on the first
// user's sessions, asks, cards, schedules, subscriptions and groups through any relay_tool action or any /api/v1
// route; the other user's ids answer REMOTE_RELAY_NOT_FOUND (404), as ids that do not exist would, and nothing of
// the first user's changes. The tables are checked for completeness against the tool's own list of actions and
// arguments (tools/list) and against every /api/v1 route the gateway registers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary } from '@relay/rpc';
import type { RelayClient } from '../harness/relay.ts';
import { sharedRelay } from '../harness/shared-relay.ts';
import { callTool as call, RelayUser, toolStep as tool, type Agent } from '../harness/relay-user.ts';

let relay: RelayClient;
let first: RelayUser;
let second: RelayUser;

/** What the first user owns, for the second to try. */
const mine = {} as {
  session: { id: string; messageId: string };
  card: { id: string };
  agent: Agent;
  askId: string;
  scheduleId: string;
  /** The first user's conversation that subscribed to `session` and started a session (and so a group). */
  watcherId: string;
  subscriptionId: string;
  groupId: string;
};

/** Ids a relay_tool argument carries; every such argument must be tried below. */
const ID_ARGUMENTS = ['session', 'task_id', 'message_id', 'question_id', 'sessions', 'subscription_id', 'watcher', 'from', 'schedule_id', 'group'];
// `exclude` names sessions a subscription to ["all"] leaves out: it neither shows nor touches them.
const NOT_REACHING = ['exclude'];

/** Actions that take no id of anything a user owns: what they list must not show the other user's things. */
const NO_IDS = ['list_relays', 'relay_info', 'usage', 'list_sessions', 'list_schedules'];

/** Every action that takes an id, with the calls the second user's agent tries and the code each must answer. */
function actionTable(): Record<string, { args: Record<string, unknown>; code?: string }[]> {
  const unknownGroup = 'REMOTE_RELAY_UNKNOWN_GROUP';
  return {
    read_session: [{ args: { relay: 'this', session: mine.session.id } }],
    read_task_output: [{ args: { relay: 'this', session: mine.session.id, task_id: 'task_000000000000' } }],
    send: [{ args: { relay: 'this', session: mine.session.id, text: 'reply hijacked', wait_seconds: 0 } }],
    create_session: [{ args: { relay: 'this', provider: 'script', text: 'reply hijacked', group: mine.groupId, wait_seconds: 0 }, code: unknownGroup }],
    update_session: [{ args: { relay: 'this', session: mine.session.id, title: 'Hijacked' } }],
    wait: [{ args: { relay: 'this', session: mine.session.id, message_id: mine.session.messageId, wait_seconds: 0 } }],
    answer_question: [
      { args: { relay: 'this', question_id: mine.card.id, choices: ['No'] } },
      { args: { relay: 'this', session: mine.session.id, question_id: mine.card.id, choices: ['No'] } },
    ],
    stop: [{ args: { relay: 'this', session: mine.session.id } }],
    archive: [{ args: { relay: 'this', session: mine.session.id } }],
    subscribe: [{ args: { sessions: [mine.session.id] } }],
    unsubscribe: [{ args: { subscription_id: mine.subscriptionId } }],
    list_subscriptions: [{ args: { watcher: mine.watcherId } }],
    transfer_subscriptions: [{ args: { from: mine.watcherId } }],
    schedule: [{ args: { session: mine.session.id, title: 'Later', text: 'reply later', at: '2030-01-01T00:00:00Z' } }],
    unschedule: [{ args: { schedule_id: mine.scheduleId } }],
    ask: [{ args: { session: mine.session.id, question: 'Can I see this?' } }],
    list_questions: [{ args: { session: mine.session.id } }],
    withdraw: [{ args: { question_id: mine.askId } }],
  };
}

/** Every /api/v1 route with an id of something a user owns: the second user gets 404 REMOTE_RELAY_NOT_FOUND. */
function httpTable(): Record<string, [string, unknown?][]> {
  const id = mine.session.id;
  return {
    'GET /api/v1/sessions/:id': [[`/api/v1/sessions/${id}`]],
    'PATCH /api/v1/sessions/:id': [[`/api/v1/sessions/${id}`, { mode: 'plan' }]],
    'POST /api/v1/sessions/:id/messages': [[`/api/v1/sessions/${id}/messages`, { text: 'reply hijacked' }]],
    'GET /api/v1/sessions/:id/messages/:messageId': [[`/api/v1/sessions/${id}/messages/${mine.session.messageId}`]],
    'PATCH /api/v1/sessions/:id/settings': [[`/api/v1/sessions/${id}/settings`, { title: 'Hijacked' }]],
    'POST /api/v1/sessions/:id/stop': [[`/api/v1/sessions/${id}/stop`]],
    'POST /api/v1/sessions/:id/archive': [[`/api/v1/sessions/${id}/archive`]],
    'POST /api/v1/sessions/:id/unarchive': [[`/api/v1/sessions/${id}/unarchive`]],
    'GET /api/v1/sessions/:id/wait': [[`/api/v1/sessions/${id}/wait?message_id=${mine.session.messageId}&wait_seconds=0`]],
    'GET /api/v1/sessions/:id/tasks/:taskId/output': [[`/api/v1/sessions/${id}/tasks/task_000000000000/output`]],
    'GET /api/v1/cards/:id': [[`/api/v1/cards/${mine.card.id}`]],
    'POST /api/v1/cards/:id': [[`/api/v1/cards/${mine.card.id}`, { decision: 'answer', choices: ['No'] }]],
    'POST /api/v1/asks/:id': [[`/api/v1/asks/${mine.askId}`, { decision: 'dismiss' }]],
    'DELETE /api/v1/schedules/:id': [[`/api/v1/schedules/${mine.scheduleId}`]],
    'GET /api/v1/sessions/:id/subscriptions': [[`/api/v1/sessions/${mine.watcherId}/subscriptions`]],
    'DELETE /api/v1/sessions/:id/subscriptions/:subscriptionId': [[`/api/v1/sessions/${mine.watcherId}/subscriptions/${mine.subscriptionId}`]],
    'PUT /api/v1/sessions/:id/budget': [[`/api/v1/sessions/${id}/budget`, { costUsd: 1 }]],
    'DELETE /api/v1/sessions/:id/budget': [[`/api/v1/sessions/${id}/budget`]],
    'GET /api/v1/sessions/:id/tree-usage': [[`/api/v1/sessions/${id}/tree-usage`]],
    'POST /api/v1/sessions/:id/token': [[`/api/v1/sessions/${mine.agent.id}/token`]],
    'DELETE /api/v1/sessions/:id/token': [[`/api/v1/sessions/${mine.agent.id}/token`]],
  };
}

/** Routes that list the user's own things: with the other user's ids in the query they show nothing of theirs. */
const LISTINGS = ['GET /api/v1/sessions', 'GET /api/v1/cards', 'GET /api/v1/asks', 'GET /api/v1/inbox', 'GET /api/v1/schedules'];

/**
 * Routes that take no id of anything a user owns: this relay, its settings and its pairings (Settings → Relays is
 * the relay's, not one user's: pairings are named by relay name; changing them is for admins), creating one's own
 * session, who one is, a sign-in link for oneself, the relay's usage (monthly and day by day) and live updates, and the relay's users (for admins).
 * One's own notification settings and browser subscriptions take no id either: each route acts on the caller's own
 * (a push subscription is removed by its endpoint among the caller's only).
 */
const RELAY_WIDE = [
  'GET /api/v1/me',
  'GET /api/v1/notifications',
  'PATCH /api/v1/notifications',
  'POST /api/v1/notifications/push-subscriptions',
  'DELETE /api/v1/notifications/push-subscriptions',
  'POST /api/v1/sign-in-links',
  'GET /api/v1/users',
  'POST /api/v1/users',
  'DELETE /api/v1/users/:id',
  'POST /api/v1/users/:id/token',
  'DELETE /api/v1/users/:id/token',
  'GET /api/v1/usage',
  'GET /api/v1/usage/daily',
  'GET /api/v1/events',
  'GET /api/v1/relay',
  'GET /api/v1/settings',
  'PATCH /api/v1/settings',
  'POST /api/v1/sessions',
  'GET /api/v1/pairings',
  'POST /api/v1/pairings',
  'PATCH /api/v1/pairings/:name',
  'DELETE /api/v1/pairings/:name',
  'POST /api/v1/pairing-codes',
  'GET /api/v1/pairing-settings',
  'PUT /api/v1/pairing-settings',
  // An MCP client's sign-in request, which is no user's until the person signed in consents to it.
  'GET /api/v1/oauth/authorization',
  'POST /api/v1/oauth/authorization',
];

/**
 * Every /api/v1 route the gateway serves, as "METHOD /path", from its OpenAPI document (which lists every route it
 * registers: services/gateway/test/user-api-contract.int.test.ts holds it to that).
 */
async function registeredApiRoutes(): Promise<string[]> {
  const document = (await (await fetch(`${relay.gatewayUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))
    .sort();
}

beforeAll(async () => {
  relay = await sharedRelay();
  first = new RelayUser(relay, relay.userToken);
  const other = await callUnary<{ name: string }, { userId: string; token: string }>(relay.sessionClient, 'createUser', { name: 'second user' });
  second = new RelayUser(relay, other.token);

  // The first user's things: a session whose turn waits on a card, an ask about it, a schedule into it, a
  // subscription to it, and a session group.
  mine.session = await first.scriptSession('Mine', 'ask_user Keep going? | Yes | No\nreply {{answer}}');
  mine.card = await first.pendingCard(mine.session.id);
  mine.agent = await first.externalAgent('My agent');
  const asked = await call(mine.agent, { action: 'ask', session: mine.session.id, question: 'Mine to answer?' });
  const scheduled = await call(mine.agent, {
    action: 'schedule',
    session: mine.session.id,
    title: 'Mine later',
    text: 'reply later',
    at: '2030-01-01T00:00:00Z',
  });
  for (const result of [asked, scheduled]) expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
  mine.askId = asked.question_id;
  mine.scheduleId = scheduled.schedule_id;
  // The first watch and the first session started each ask the user first: both are allowed.
  const watcher = await first.scriptSession(
    'Watcher',
    [
      tool({ action: 'subscribe', sessions: [mine.session.id] }),
      'reply {{result.subscription.id}}',
      tool({ action: 'create_session', relay: 'this', provider: 'script', title: 'Child', text: 'reply child', wait_seconds: 0 }),
      'reply {{result.group.id}}',
    ].join('\n'),
  );
  mine.watcherId = watcher.id;
  const firstWatch = await first.pendingCard(watcher.id);
  expect((await first.api('POST', `/api/v1/cards/${firstWatch.id}`, { decision: 'allow' })).status).toBe(200);
  let firstStart = await first.pendingCard(watcher.id);
  while (firstStart.id === firstWatch.id) firstStart = await first.pendingCard(watcher.id);
  expect((await first.api('POST', `/api/v1/cards/${firstStart.id}`, { decision: 'allow' })).status).toBe(200);
  [mine.subscriptionId, mine.groupId] = (await first.finish(watcher.id, watcher.messageId)).reply.text.split('\n');
  expect(mine.subscriptionId).toMatch(/^sub_/);
  expect(mine.groupId).not.toBe('');
});

afterAll(async () => {
  await first?.close();
  await second?.close();
  await relay?.stop();
});

describe('isolation between users', () => {
  it('the tables cover every relay_tool action and every id argument the tool lists', async () => {
    const probe = await second.externalAgent('Probe');
    const { tools } = await probe.client.listTools();
    const schema = tools.find((candidate) => candidate.name === 'relay_tool')!.inputSchema as { properties: Record<string, { enum?: string[] }> };
    const actions = schema.properties['action']!.enum!;
    expect([...Object.keys(actionTable()), ...NO_IDS].sort()).toEqual([...actions].sort());
    const idLike = Object.keys(schema.properties).filter((name) => /(^|_)(id|session|sessions|watcher|from|group|exclude)$/.test(name));
    expect([...ID_ARGUMENTS, ...NOT_REACHING].sort()).toEqual(idLike.sort());
    const tried = new Set(Object.values(actionTable()).flatMap((calls) => calls.flatMap((one) => Object.keys(one.args))));
    for (const argument of ID_ARGUMENTS) expect(tried, argument).toContain(argument);
  });

  it('the tables cover every /api/v1 route the gateway registers', async () => {
    expect([...Object.keys(httpTable()), ...LISTINGS, ...RELAY_WIDE].sort()).toEqual(await registeredApiRoutes());
  });

  it("answers every action on the first user's ids as if they did not exist, and lists nothing of theirs", async () => {
    const theirs = await second.externalAgent('Their agent');
    for (const [action, calls] of Object.entries(actionTable())) {
      for (const { args, code } of calls) {
        const result = await call(theirs, { action, ...args });
        expect(result, `${action} ${JSON.stringify(args)}`).toMatchObject({ ok: false, code: code ?? 'REMOTE_RELAY_NOT_FOUND' });
      }
    }
    const sessions = await call(theirs, { action: 'list_sessions', relay: 'this', scope: 'all' });
    expect(sessions.sessions.map((s: { title: string }) => s.title).sort()).toEqual(['Probe', 'Their agent']);
    const info = await call(theirs, { action: 'relay_info', relay: 'this' });
    expect(info.groups.map((g: { id: string }) => g.id)).not.toContain(mine.groupId);
    expect((await call(theirs, { action: 'list_schedules' })).schedules).toEqual([]);
    expect((await call(theirs, { action: 'list_subscriptions' })).subscriptions).toEqual([]);
    expect((await call(theirs, { action: 'list_questions' })).questions).toEqual([]);
  });

  it("answers every /api/v1 route on the first user's ids with 404, and lists nothing of theirs", async () => {
    for (const [route, requests] of Object.entries(httpTable())) {
      const method = route.split(' ')[0]!;
      for (const [path, body] of requests) {
        const answer = await second.api(method, path, body);
        expect([answer.status, answer.body?.code], `${method} ${path}: ${JSON.stringify(answer.body)}`).toEqual([404, 'REMOTE_RELAY_NOT_FOUND']);
      }
    }
    const ownSessions = (await second.api('GET', '/api/v1/sessions?scope=all')).body.sessions.map((s: { title: string }) => s.title);
    expect(ownSessions.sort()).toEqual(['Probe', 'Their agent']);
    expect((await second.api('GET', '/api/v1/inbox')).body).toEqual({ asks: [], cards: [], more: false });
    expect((await second.api('GET', `/api/v1/cards?session=${mine.session.id}`)).body.cards).toEqual([]);
    expect((await second.api('GET', `/api/v1/asks?session=${mine.session.id}`)).body.asks).toEqual([]);
    expect((await second.api('GET', `/api/v1/asks?asked_by=${mine.agent.id}`)).body.asks).toEqual([]);
    expect((await second.api('GET', '/api/v1/schedules')).body.schedules).toEqual([]);
    expect(await second.api('GET', `/api/v1/schedules?session=${mine.session.id}`)).toMatchObject({ status: 200, body: { schedules: [] } });
  });

  it("leaves everything of the first user's as it was", async () => {
    expect((await first.pendingCard(mine.session.id)).id).toBe(mine.card.id);
    const read = await first.api('GET', `/api/v1/sessions/${mine.session.id}?last=20`);
    expect(read.body.session).toMatchObject({ title: 'Mine', state: 'running_turn' });
    expect(read.body.session.archived ?? false).toBe(false);
    expect(read.body.messages.filter((m: { role: string }) => m.role !== 'user')).toEqual([]);
    expect((await first.api('GET', '/api/v1/inbox')).body.asks.map((a: { id: string }) => a.id)).toEqual([mine.askId]);
    expect((await call(mine.agent, { action: 'list_schedules' })).schedules).toEqual([
      expect.objectContaining({ id: mine.scheduleId, nextFireAt: '2030-01-01T00:00:00.000Z' }),
    ]);
    expect((await call(mine.agent, { action: 'list_subscriptions', watcher: mine.watcherId })).subscriptions).toEqual([
      expect.objectContaining({ id: mine.subscriptionId }),
    ]);
    const sessions = (await first.api('GET', '/api/v1/sessions?scope=all')).body.sessions.map((s: { title: string }) => s.title);
    expect(sessions.sort()).toEqual(['Child', 'Mine', 'My agent', 'Watcher']);
  });
});
