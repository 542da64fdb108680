// The user API's contract (docs/adr/0038): the document a listening gateway serves at /api/v1/openapi.json is the one
// committed in @relay/user-api (what the console and the CLI are typed with), every route it lists answers a call
// through the running gateway with its documented status and a body its schema (JSON Schema 2020-12, by Ajv) accepts,
// and an answer that does not match its route's schema is a fault, never sent. The owners are in-process fakes whose
// answers are the protos' own messages (fromPartial: every field present, as the gRPC clients decode them).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createLogger } from '@relay/telemetry';
import { AgentLevel, PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { Ask, AskStatus, Card, CardKind, CardStatus, NotificationSettings } from '@relay/proto/relay/question/v1/question_service';
import { Schedule } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { ChatMessage, MessageDelivery, RelaySettings, Session, SessionState, TurnStatus } from '@relay/proto/relay/session/v1/session';
import { TreeUsage } from '@relay/proto/relay/session/v1/session_service';
import { Subscription } from '@relay/proto/relay/subscription/v1/subscription_service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import type { OAuthServiceClient, PairingClient, QuestionClient, SchedulerClient, SessionClient, SubscriptionClient } from '../src/app/ports.ts';

const TOKEN = 'rly_u_contract';
const CALLBACK = 'http://127.0.0.1:5555/callback';
/** An MCP client's authorization request, as the consent page reads and posts it. */
const AUTHORIZATION = {
  client_id: 'client-1',
  redirect_uri: CALLBACK,
  response_type: 'code',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  resource: 'https://desk.example.com/mcp',
  state: 'abc',
};
const NOW = new Date('2026-12-01T09:30:00Z');

const session = (fields: Partial<Session> = {}) =>
  Session.fromPartial({
    id: 's1',
    title: 'Review',
    provider: 'claude',
    model: 'sonnet',
    state: SessionState.SESSION_STATE_RUNNING_TURN,
    cwd: '/home/dev/app',
    mode: 'agent',
    lastActivityAt: NOW,
    messageCount: 3,
    group: { id: 'g1', name: 'Release', role: 'lead' },
    mayCreateSessions: true,
    startedBySessionId: 's0',
    startedByTitle: 'Planner',
    tasks: [
      {
        id: 't1',
        description: 'npm test',
        type: 'shell',
        status: 'running',
        startedAt: NOW,
        hasOutput: true,
        health: { minutesSinceOutput: 2, quiet: false, quietAfterMinutes: 10 },
        counts: { runner: 'vitest', passed: 4, failed: 1, skipped: 0, final: false },
      },
    ],
    lastTurn: { status: TurnStatus.TURN_STATUS_ERROR, error: 'the model refused' },
    ...fields,
  });

const messages = [
  ChatMessage.fromPartial({
    id: 'm1',
    role: 'user',
    text: 'z'.repeat(9000),
    createdAt: NOW,
    delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
    provenance: { originRelay: 'build-box', originSessionId: 'x1', originSessionTitle: 'CI', model: 'gpt', hops: 1, viaRelays: ['build-box'] },
  }),
  ChatMessage.fromPartial({ id: 'm2', role: 'assistant', text: 'Done.', createdAt: NOW, model: 'sonnet' }),
];
const card = Card.fromPartial({
  id: 'c1',
  sessionId: 's1',
  kind: CardKind.CARD_KIND_QUESTION,
  title: 'Which branch?',
  lines: ['main or next'],
  options: ['main', 'next'],
  status: CardStatus.CARD_STATUS_PENDING,
  createdAt: NOW,
});
const ask = Ask.fromPartial({
  id: 'a1',
  aboutSessionId: 's1',
  askingSessionId: 's2',
  question: 'Ship it?',
  options: ['yes', 'no'],
  recommendation: 'yes',
  status: AskStatus.ASK_STATUS_PENDING,
  createdAt: NOW,
});
const schedule = Schedule.fromPartial({
  id: 'sch1',
  targetSessionId: 's1',
  targetSessionTitle: 'Review',
  settingSessionId: 's2',
  settingSessionTitle: 'Planner',
  title: 'Nightly',
  text: 'run the suite',
  at: NOW,
  everyMinutes: 1440,
  nextFireAt: NOW,
  firedCount: 2,
  skippedCount: 1,
  heldForApproval: true,
  heldSince: NOW,
  heldFireAt: NOW,
});
const subscription = Subscription.fromPartial({
  id: 'sub1',
  watcherSessionId: 's1',
  scope: 'sessions',
  sessions: [{ id: 's2', title: 'Planner' }],
  events: ['turn_done'],
  stalledMinutes: 30,
  digestMinutes: 15,
  quietHours: { from: '22:00', to: '07:00', tz: 'Europe/Berlin' },
  exclude: ['s3'],
  heldCount: 2,
  nextDeliveryAt: NOW,
});
const relay = PairedRelay.fromPartial({
  name: 'build-box',
  url: 'https://build-box.example.com',
  level: AgentLevel.AGENT_LEVEL_READ,
  online: true,
  version: '0.9.19',
});
const relaySettings = RelaySettings.fromPartial({ agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 60, taskQuietMinutes: 10 });
const notifications = NotificationSettings.fromPartial({
  webhookUrl: 'https://hooks.example.com/x',
  cards: true,
  asks: false,
  vapidPublicKey: 'BPk',
  pushSubscriptions: 1,
});
const user = { id: 'u1', name: 'Ada', role: 'admin', createdAt: NOW };
const row = { sessionId: 's1', provider: 'claude', relay: '', turns: 2, inputTokens: 1200, outputTokens: 300, costUsd: 0.42 };
const tree = TreeUsage.fromPartial({
  sessionId: 's1',
  rows: [row],
  totals: row,
  sessionsStarted: 2,
  budgets: [
    {
      sessionId: 's1',
      setBy: 'user',
      limits: { costUsd: 5, sessions: 12 },
      startedAt: NOW,
      state: 'open',
      level: 'ok',
      meters: [],
      remaining: { costUsd: 4.58, sessions: 10 },
    },
  ],
});
const turn = {
  sessionId: 's1',
  messageId: 'm1',
  status: TurnStatus.TURN_STATUS_DONE,
  replyText: 'Yes.',
  replyModel: 'sonnet',
  delivery: MessageDelivery.MESSAGE_DELIVERY_DELIVERED,
};

/** What each owner answers: only the calls the user API makes, each a whole proto message. */
function owners(overrides: { readSession?: () => unknown } = {}) {
  const read = () => ({
    session: session(),
    messages,
    inFlight: 'Thinking…',
    pendingQuestions: [{ id: 'c1', kind: 'ask_user', question: 'Which branch?', options: ['main'] }],
    groupMembers: [{ id: 's2', title: 'Planner', role: 'member', state: SessionState.SESSION_STATE_IDLE, archived: true }],
    neverAskedAbout: false,
    askMark: 0,
  });
  const sessions = {
    authenticate: async ({ token }: { token: string }) => {
      if (token !== TOKEN) throw new Error('unknown token');
      return { caller: { userId: 'u1', sessionId: '' }, role: 'admin', external: false };
    },
    listSessions: async () => ({
      sessions: [session(), session({ id: 's2', archived: true, origin: 2, group: undefined, tasks: [], lastTurn: undefined })],
      total: 3,
    }),
    createExternalSession: async () => ({ session: session({ id: 's3' }), token: 'rly_s_new' }),
    createSession: async () => ({ session: session({ id: 's4' }), messageId: 'm9', modelNote: 'sonnet is the default' }),
    readSession: overrides.readSession ?? (async () => read()),
    clearAskMark: async () => ({}),
    setConversationOptions: async () => ({ session: session({ mode: 'ask' }) }),
    sendMessage: async () => ({ messageId: 'm10' }),
    getRelaySettings: async () => ({ settings: relaySettings }),
    updateRelaySettings: async () => ({ settings: relaySettings, changed: ['max_wait_seconds'] }),
    wait: async function* () {
      yield { result: turn };
    },
    stopTurn: async () => ({ stopRequested: true }),
    archiveSession: async () => ({ session: session({ archived: true }) }),
    unarchiveSession: async () => ({ session: session() }),
    updateSession: async () => ({ changed: ['group'], groupCreated: { id: 'g2', name: 'Next', memberCount: 1 }, note: 'a new group', needsAllow: false }),
    readTaskOutput: async () => ({
      task: { id: 't1', description: 'npm test', type: 'shell', status: 'running', startedAt: NOW, hasOutput: true },
      tail: ['ok 1'],
      truncated: true,
      stall: { minutes: 2, since: NOW, quiet: false, quietAfterMinutes: 10 },
      counts: { runner: 'vitest', passed: 4, failed: 1, skipped: 0, final: false },
      notes: ['the start is cut'],
    }),
    getRelayInfo: async () => ({
      providers: [],
      usage: {
        providers: [
          {
            provider: 'claude',
            status: 'paused',
            reason: 'limit',
            meters: [{ name: 'tokens', used: 10, allowance: 100, remaining: 90, utilization: 0.1, resetsAt: NOW }],
            pausedUntil: NOW,
          },
        ],
        claudeUsageLimitPaused: true,
      },
    }),
    getDailyUsage: async () => ({
      days: ['2026-11-30'],
      providers: [{ provider: 'claude', costTracked: true, days: [{ day: '2026-11-30', inputTokens: '1200', outputTokens: '300', costUsd: 0.42, turns: 2 }] }],
    }),
    listUsers: async () => ({ users: [user] }),
    createUser: async () => ({ userId: 'u2', role: 2, token: 'rly_u_new' }),
    removeUser: async () => ({ user: { ...user, id: 'u2', role: 'member' }, archivedSessions: 2 }),
    rotateUserToken: async () => ({ token: 'rly_u_rotated' }),
    rotateSessionToken: async () => ({ token: 'rly_s_rotated' }),
    createSignInLink: async () => ({ link: 'rly_l_link', expiresAt: NOW }),
    getTreeUsage: async () => ({ usage: tree }),
    getBudgetedRemoteSessions: async () => ({ remoteSessions: [] }),
    setBudget: async () => ({ usage: tree }),
    removeBudget: async () => ({ usage: tree }),
  };
  const questions = {
    listCards: async () => ({ cards: [card], more: true }),
    getCard: async () => ({ card }),
    decideCard: async () => ({ card: { ...card, status: CardStatus.CARD_STATUS_ANSWERED, answer: 'main', choices: ['main'], decidedAt: NOW } }),
    listAsks: async () => ({ asks: [ask], more: false }),
    answerAsk: async () => ({ ask: { ...ask, status: AskStatus.ASK_STATUS_ANSWERED, answer: 'yes', choice: 'yes', via: 'console', endedAt: NOW } }),
    getNotificationSettings: async () => ({ settings: notifications }),
    updateNotificationSettings: async () => ({ settings: notifications }),
    addPushSubscription: async () => ({ settings: notifications }),
    removePushSubscription: async () => ({ settings: notifications }),
  };
  const pairing = {
    createPairingCode: async () => ({ code: 'ABCD-EFGH-JKMN', expiresAt: NOW }),
    pair: async () => ({ relay }),
    listPairedRelays: async () => ({ relays: [relay] }),
    setAgentLevel: async () => ({ relay }),
    unpair: async () => ({ relay }),
    getPairingSettings: async () => ({ settings: { acceptPrompts: false } }),
    setPairingSettings: async () => ({ settings: { acceptPrompts: true } }),
  };
  const schedules = {
    listSchedules: async () => ({ schedules: [schedule], more: false }),
    endSchedule: async () => ({ schedule: { ...schedule, endedAt: NOW, endReason: 'unscheduled' } }),
  };
  const subscriptions = {
    listUserSubscriptions: async () => ({ subscriptions: [subscription] }),
    listSubscriptions: async () => ({
      subscriptions: [subscription, { ...subscription, id: 'sub2', scope: 'all', endedAt: NOW, endReason: 'unsubscribed', heldCount: 0 }],
    }),
    unsubscribe: async () => ({ endedIds: ['sub1'] }),
  };
  // A client registered on this relay (dynamic registration), signing in back to its loopback address.
  const oauth = {
    getClient: async () => ({ metadataJson: JSON.stringify({ client_name: 'My editor', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }) }),
    grantAuthorization: async () => ({ code: 'code-1', session: session({ id: 's5', title: 'My editor' }) }),
  };
  return {
    oauth: oauth as unknown as OAuthServiceClient,
    sessions: sessions as unknown as SessionClient,
    questions: questions as unknown as QuestionClient,
    pairing: pairing as unknown as PairingClient,
    schedules: schedules as unknown as SchedulerClient,
    subscriptions: subscriptions as unknown as SubscriptionClient,
  };
}

/** A call of each route the document lists, by "METHOD /path" as the document writes it. */
const CALLS: Record<string, { path?: string; body?: unknown }> = {
  'GET /api/v1/relay': {},
  'GET /api/v1/sessions': { path: '/api/v1/sessions?scope=all&page=1&limit=2' },
  'POST /api/v1/sessions': { body: { text: 'reply hello', title: 'Hello' } },
  'GET /api/v1/sessions/{id}': { path: '/api/v1/sessions/s1?last=20' },
  'PATCH /api/v1/sessions/{id}': { body: { mode: 'ask' } },
  'POST /api/v1/sessions/{id}/messages': { body: { text: 'and then?' } },
  'GET /api/v1/sessions/{id}/wait': { path: '/api/v1/sessions/s1/wait?message_id=m1' },
  'POST /api/v1/sessions/{id}/stop': {},
  'POST /api/v1/sessions/{id}/archive': {},
  'POST /api/v1/sessions/{id}/unarchive': {},
  'PATCH /api/v1/sessions/{id}/settings': { body: { group: 'Next' } },
  'GET /api/v1/sessions/{id}/messages/{messageId}': { path: '/api/v1/sessions/s1/messages/m1' },
  'GET /api/v1/sessions/{id}/tasks/{taskId}/output': { path: '/api/v1/sessions/s1/tasks/t1/output?lines=20' },
  'GET /api/v1/usage': {},
  'GET /api/v1/usage/daily': { path: '/api/v1/usage/daily?days=1' },
  'GET /api/v1/cards': { path: '/api/v1/cards?pending=1' },
  'GET /api/v1/cards/{id}': { path: '/api/v1/cards/c1' },
  'POST /api/v1/cards/{id}': { path: '/api/v1/cards/c1', body: { decision: 'answer', choices: ['main'] } },
  'GET /api/v1/inbox': {},
  'GET /api/v1/asks': {},
  'POST /api/v1/asks/{id}': { path: '/api/v1/asks/a1', body: { decision: 'answer', choice: 'yes' } },
  'GET /api/v1/notifications': {},
  'PATCH /api/v1/notifications': { body: { asks: true } },
  'POST /api/v1/notifications/push-subscriptions': { body: { endpoint: 'https://push.example.com/1', keys: { p256dh: 'key', auth: 'auth' } } },
  'DELETE /api/v1/notifications/push-subscriptions': { body: { endpoint: 'https://push.example.com/1' } },
  'GET /api/v1/schedules': {},
  'DELETE /api/v1/schedules/{id}': { path: '/api/v1/schedules/sch1' },
  'GET /api/v1/sessions/{id}/subscriptions': {},
  'DELETE /api/v1/sessions/{id}/subscriptions/{subscriptionId}': { path: '/api/v1/sessions/s1/subscriptions/sub1' },
  'POST /api/v1/pairing-codes': {},
  'POST /api/v1/pairings': { body: { url: 'https://build-box.example.com', code: 'ABCD-EFGH-JKMN' } },
  'GET /api/v1/pairings': {},
  'PATCH /api/v1/pairings/{name}': { path: '/api/v1/pairings/build-box', body: { level: 'read' } },
  'DELETE /api/v1/pairings/{name}': { path: '/api/v1/pairings/build-box' },
  'GET /api/v1/pairing-settings': {},
  'PUT /api/v1/pairing-settings': { body: { accept_prompts: true } },
  'GET /api/v1/settings': {},
  'PATCH /api/v1/settings': { body: { max_wait_seconds: 600 } },
  'GET /api/v1/me': {},
  'GET /api/v1/users': {},
  'POST /api/v1/users': { body: { name: 'Grace', role: 'member' } },
  'DELETE /api/v1/users/{id}': { path: '/api/v1/users/u2' },
  'POST /api/v1/users/{id}/token': { path: '/api/v1/users/u1/token' },
  'DELETE /api/v1/users/{id}/token': { path: '/api/v1/users/u1/token' },
  'POST /api/v1/sessions/{id}/token': {},
  'DELETE /api/v1/sessions/{id}/token': {},
  'POST /api/v1/sign-in-links': {},
  'GET /api/v1/sessions/{id}/tree-usage': {},
  'PUT /api/v1/sessions/{id}/budget': { body: { costUsd: 5, sessions: 12 } },
  'DELETE /api/v1/sessions/{id}/budget': {},
  'GET /api/v1/oauth/authorization': { path: `/api/v1/oauth/authorization?${new URLSearchParams(AUTHORIZATION).toString()}` },
  'POST /api/v1/oauth/authorization': { body: { request: AUTHORIZATION, allow: true, title: 'My editor' } },
};

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
}

async function listen(overrides?: Parameters<typeof owners>[0]) {
  const app = buildApp({
    relayName: 'desk',
    publicUrl: 'https://desk.example.com',
    openUrlBase: 'https://desk.example.com',
    logger: createLogger({ name: 'contract-test', level: 'silent' }),
    ...owners(overrides),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the gateway is not listening on a TCP port');
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${address.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { app, call };
}

let gateway: Awaited<ReturnType<typeof listen>>;
let document: Document;

beforeAll(async () => {
  gateway = await listen();
  const served = await gateway.call('GET', '/api/v1/openapi.json');
  expect(served.status).toBe(200);
  document = (await served.json()) as Document;
});

afterAll(async () => {
  await gateway.app.close();
});

describe('the user API contract', () => {
  it('serves the OpenAPI 3.1 document that is committed in @relay/user-api', () => {
    const committed = JSON.parse(readFileSync(new URL('../../../packages/user-api/openapi.json', import.meta.url), 'utf8')) as Document;
    expect(document.openapi).toBe('3.1.0');
    expect(document).toEqual(committed);
  });

  it('lists every /api/v1 route and nothing else, and each has a call here', () => {
    const listed = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(listed.every((route) => / \/api\/v1\//.test(route))).toBe(true);
    expect(listed.sort()).toEqual([...Object.keys(CALLS), 'GET /api/v1/events'].sort());
  });

  it('answers each route through the running gateway with its documented status and a body its schema accepts', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('date-time', true);
    for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    for (const [route, { path, body }] of Object.entries(CALLS)) {
      const [method, documented] = route.split(' ') as [string, string];
      const operation = document.paths[documented]![method.toLowerCase()]!;
      const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
      const response = await gateway.call(method, path ?? documented.replaceAll(/\{[^}]+\}/g, 's1'), body);
      const answer = (await response.json()) as unknown;
      expect({ route, status: response.status, answer }).toMatchObject({ route, status: Number(success) });
      const validate = ajv.compile(operation.responses[success]!.content!['application/json']!.schema);
      expect({ route, errors: validate(answer) ? [] : validate.errors }).toEqual({ route, errors: [] });
    }
  });

  it('refuses with a Refusal the document names for 4xx', async () => {
    const refused = await gateway.call('GET', '/api/v1/sessions?scope=recent');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ code: 'REMOTE_RELAY_INVALID_INPUT', error: 'scope must be one of: active, archived, all' });
    expect(document.paths['/api/v1/sessions']!.get!.responses['4XX']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Refusal' });
  });

  it('never sends an answer that does not match its schema: it is a fault (500), the field left out of it is not sent', async () => {
    // A session service answering a session without its mode (not a proto message: a mode-less object).
    const { mode: _mode, ...modeless } = session();
    const broken = await listen({
      readSession: async () => ({ session: modeless, messages: [], inFlight: '', pendingQuestions: [], groupMembers: [], neverAskedAbout: true, askMark: 0 }),
    });
    try {
      const response = await broken.call('GET', '/api/v1/sessions/s1');
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ code: 'REMOTE_RELAY_INTERNAL', error: 'internal error' });
    } finally {
      await broken.app.close();
    }
  });
});
