/**
 * The authorization matrix: every kind of token against every route and relay_tool action, on the caller's own
 * resource and on another user's, through the real gateway of a real relay. Each row says what must happen; a
 * row that answers anything else is a hole in a trust boundary (docs/security.md).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';
import { RelayUser } from '../harness/relay-user.ts';

/** Who calls: no token, a made-up one, the first user (admin), a member, an agent (a session's token), a paired relay. */
const CALLERS = ['anonymous', 'bogus', 'admin', 'member', 'agent', 'relay'] as const;
type Caller = (typeof CALLERS)[number];

interface World {
  /** The admin's external session: the agent of the matrix is it. */
  adminSession: string;
  /** The admin's `script` session and its first message. */
  adminScript: string;
  adminMessage: string;
  memberSession: string;
}

interface Route {
  name: string;
  method: string;
  path: (world: World) => string;
  body?: (world: World) => unknown;
  /** The HTTP status each caller gets; a caller left out gets `otherwise`. */
  expect: Partial<Record<Caller, number>>;
  otherwise: number;
}

// The user API takes a user's own token: a session's token is refused with 403, a relay's (unknown to the user
// API) with 401. Members see their own things; relay-wide changes are for admins.
const userRoute = (name: string, method: string, path: Route['path'], ok: { admin: number; member: number }, body?: Route['body']): Route => ({
  name,
  method,
  path,
  ...(body ? { body } : {}),
  expect: { admin: ok.admin, member: ok.member, agent: 403 },
  otherwise: 401,
});

const ROUTES: Route[] = [
  { name: 'health', method: 'GET', path: () => '/healthz', expect: {}, otherwise: 200 },
  userRoute('who am I', 'GET', () => '/api/v1/me', { admin: 200, member: 200 }),
  userRoute('list sessions', 'GET', () => '/api/v1/sessions', { admin: 200, member: 200 }),
  userRoute("read the admin's session", 'GET', (w) => `/api/v1/sessions/${w.adminSession}`, { admin: 200, member: 404 }),
  userRoute("read the member's session", 'GET', (w) => `/api/v1/sessions/${w.memberSession}`, { admin: 404, member: 200 }),
  userRoute(
    "set the admin's session's mode",
    'PATCH',
    (w) => `/api/v1/sessions/${w.adminSession}`,
    { admin: 200, member: 404 },
    () => ({ mode: 'agent' }),
  ),
  userRoute(
    "write into the admin's session",
    'POST',
    (w) => `/api/v1/sessions/${w.adminScript}/messages`,
    { admin: 201, member: 404 },
    () => ({ text: 'reply hello' }),
  ),
  userRoute("wait on the admin's session", 'GET', (w) => `/api/v1/sessions/${w.adminScript}/wait?wait_seconds=0&message_id=${w.adminMessage}`, {
    admin: 200,
    member: 404,
  }),
  userRoute("the admin's session's subscriptions", 'GET', (w) => `/api/v1/sessions/${w.adminSession}/subscriptions`, { admin: 200, member: 404 }),
  userRoute('the inbox', 'GET', () => '/api/v1/inbox', { admin: 200, member: 200 }),
  userRoute('cards', 'GET', () => '/api/v1/cards', { admin: 200, member: 200 }),
  userRoute('asks', 'GET', () => '/api/v1/asks', { admin: 200, member: 200 }),
  userRoute('schedules', 'GET', () => '/api/v1/schedules', { admin: 200, member: 200 }),
  userRoute('a card nobody has', 'GET', () => '/api/v1/cards/card_000000000000', { admin: 404, member: 404 }),
  userRoute(
    'answer a card nobody has',
    'POST',
    () => '/api/v1/cards/card_000000000000',
    { admin: 404, member: 404 },
    () => ({ decision: 'allow' }),
  ),
  userRoute('relay settings', 'GET', () => '/api/v1/settings', { admin: 200, member: 200 }),
  userRoute(
    'change relay settings',
    'PATCH',
    () => '/api/v1/settings',
    { admin: 200, member: 403 },
    () => ({ agent_sessions_enabled: true }),
  ),
  userRoute('the users', 'GET', () => '/api/v1/users', { admin: 200, member: 403 }),
  userRoute(
    'add a user',
    'POST',
    () => '/api/v1/users',
    { admin: 201, member: 403 },
    () => ({ name: `user ${Math.random().toString(36).slice(2)}` }),
  ),
  userRoute('pairings', 'GET', () => '/api/v1/pairings', { admin: 200, member: 200 }),
  userRoute('make a pairing code', 'POST', () => '/api/v1/pairing-codes', { admin: 201, member: 403 }),
  userRoute('pairing settings', 'GET', () => '/api/v1/pairing-settings', { admin: 200, member: 200 }),
  userRoute(
    'change pairing settings',
    'PUT',
    () => '/api/v1/pairing-settings',
    { admin: 200, member: 403 },
    () => ({ accept_prompts: true }),
  ),
  userRoute(
    'change a pairing level',
    'PATCH',
    () => '/api/v1/pairings/far',
    { admin: 200, member: 403 },
    () => ({ level: 'full' }),
  ),
  // /relay/v1 is for paired relays: only a relay token is accepted there.
  { name: 'relay hello', method: 'GET', path: () => '/relay/v1/hello', expect: { relay: 200 }, otherwise: 401 },
  {
    name: 'relay tool call',
    method: 'POST',
    path: () => '/relay/v1/tool',
    body: () => ({ action: 'list_sessions', arguments: {} }),
    expect: { relay: 200 },
    otherwise: 401,
  },
  // Another relay watches sessions through /relay/v1/subscriptions (relay_tool's subscribe is not forwarded).
  {
    name: "relay watches the admin's session",
    method: 'POST',
    path: () => '/relay/v1/subscriptions',
    body: (w) => ({ sessions: [w.adminSession], dryRun: true }),
    expect: { relay: 200 },
    otherwise: 401,
  },
  {
    name: "relay watches the member's session",
    method: 'POST',
    path: () => '/relay/v1/subscriptions',
    body: (w) => ({ sessions: [w.memberSession], dryRun: true }),
    expect: { relay: 404 },
    otherwise: 401,
  },
  // Signing in an MCP client (OAuth): the person consents through the user API; the client's own endpoints are open
  // to anyone and take no bearer token (the code, the refresh token and PKCE are what they check).
  userRoute("an MCP client's sign-in request", 'GET', () => '/api/v1/oauth/authorization', { admin: 400, member: 400 }),
  userRoute(
    "consent to an MCP client's sign-in",
    'POST',
    () => '/api/v1/oauth/authorization',
    { admin: 400, member: 400 },
    () => ({ request: {}, allow: true }),
  ),
  { name: 'protected resource metadata', method: 'GET', path: () => '/.well-known/oauth-protected-resource/mcp', expect: {}, otherwise: 200 },
  { name: 'authorization server metadata', method: 'GET', path: () => '/.well-known/oauth-authorization-server', expect: {}, otherwise: 200 },
  { name: 'authorize without a client', method: 'GET', path: () => '/oauth/authorize', expect: {}, otherwise: 400 },
  { name: 'token without a grant', method: 'POST', path: () => '/oauth/token', body: () => ({}), expect: {}, otherwise: 400 },
  { name: 'register without metadata', method: 'POST', path: () => '/oauth/register', body: () => ({}), expect: {}, otherwise: 400 },
  // /mcp takes a session's token; a user's token is refused with 403.
  {
    name: 'mcp',
    method: 'POST',
    path: () => '/mcp',
    body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    expect: { agent: 200, admin: 403, member: 403 },
    otherwise: 401,
  },
];

/** relay_tool actions on another user's session answer as if it did not exist; on the caller's own (or its user's) they work. */
interface ToolRow {
  name: string;
  call: (world: World) => Record<string, unknown>;
  /** What the admin's agent gets; `ok` or a REMOTE_RELAY_* code. */
  agent: string;
  /** What the paired relay (paired by the admin, so acting for the admin) gets. */
  relay: string;
}

const TOOL_ROWS: ToolRow[] = [
  {
    name: "read the member's session",
    call: (w) => ({ action: 'read_session', relay: 'this', session: w.memberSession }),
    agent: 'REMOTE_RELAY_NOT_FOUND',
    relay: 'REMOTE_RELAY_NOT_FOUND',
  },
  {
    name: "send to the member's session",
    call: (w) => ({ action: 'send', relay: 'this', session: w.memberSession, text: 'hi', wait_seconds: 0 }),
    agent: 'REMOTE_RELAY_NOT_FOUND',
    relay: 'REMOTE_RELAY_NOT_FOUND',
  },
  {
    name: "archive the member's session",
    call: (w) => ({ action: 'archive', relay: 'this', session: w.memberSession }),
    agent: 'REMOTE_RELAY_NOT_FOUND',
    relay: 'REMOTE_RELAY_NOT_FOUND',
  },
  {
    name: "stop the member's session",
    call: (w) => ({ action: 'stop', relay: 'this', session: w.memberSession }),
    agent: 'REMOTE_RELAY_NOT_FOUND',
    relay: 'REMOTE_RELAY_NOT_FOUND',
  },
  {
    name: "watch the member's session",
    call: (w) => ({ action: 'subscribe', relay: 'this', sessions: [w.memberSession] }),
    agent: 'REMOTE_RELAY_NOT_FOUND',
    relay: 'REMOTE_RELAY_UNSUPPORTED',
  },
  { name: "read the admin's session", call: (w) => ({ action: 'read_session', relay: 'this', session: w.adminSession }), agent: 'ok', relay: 'ok' },
  { name: "stop the admin's session", call: (w) => ({ action: 'stop', relay: 'this', session: w.adminSession }), agent: 'REMOTE_RELAY_FORBIDDEN', relay: 'ok' },
  { name: 'list sessions', call: () => ({ action: 'list_sessions', relay: 'this' }), agent: 'ok', relay: 'ok' },
];

describe('authorization matrix', () => {
  let relay: Relay;
  let admin: RelayUser;
  let member: RelayUser;
  let agentClient: Client;
  const tokens = {} as Record<Caller, string | undefined>;
  const world = {} as World;

  beforeAll(async () => {
    // The matrix sends hundreds of made-up tokens from one address on purpose: the failed-token limit (its own
    // tests are in the gateway's) would answer 429 before the rows it checks.
    relay = await startRelay({ name: 'matrix', env: { RELAY_AUTH_FAILURES_PER_MINUTE: '100000' } });
    admin = new RelayUser(relay, relay.userToken);
    const added = await admin.api('POST', '/api/v1/users', { name: 'member' });
    expect(added.status).toBe(201);
    member = new RelayUser(relay, added.body.token);

    const adminSession = await admin.api('POST', '/api/v1/sessions', { external: true, title: 'Admin desk' });
    const memberSession = await member.api('POST', '/api/v1/sessions', { external: true, title: 'Member desk' });
    world.adminSession = adminSession.body.session.id;
    const adminScript = await admin.scriptSession('Admin script', 'reply ready');
    world.adminScript = adminScript.id;
    world.adminMessage = adminScript.messageId;
    world.memberSession = memberSession.body.session.id;

    // A paired relay's token: the admin makes a code, and "far" redeems it as a relay would.
    const code = await admin.api('POST', '/api/v1/pairing-codes');
    const paired = await fetch(`${relay.gatewayUrl}/relay/v1/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code: code.body.code,
        name: 'far',
        url: 'http://127.0.0.1:9',
        version: '0.9.19',
        token: 'rly_r_far_relay_token_for_calling_this_one_back_0000',
      }),
    });
    expect(paired.status, await paired.clone().text()).toBe(200);

    Object.assign(tokens, {
      anonymous: undefined,
      bogus: 'rly_u_000000000000000000000000000000',
      admin: relay.userToken,
      member: added.body.token,
      agent: adminSession.body.token,
      relay: ((await paired.json()) as { token: string }).token,
    });
    agentClient = await relay.connectAgent(adminSession.body.token);
  });

  afterAll(async () => {
    await agentClient?.close();
    await relay?.stop();
  });

  const cases = ROUTES.flatMap((route) => CALLERS.map((caller) => ({ route, caller, status: route.expect[caller] ?? route.otherwise })));
  it.each(cases)('$route.method $route.name as $caller → $status', async ({ route, caller, status }) => {
    const token = tokens[caller];
    const response = await fetch(`${relay.gatewayUrl}${route.path(world)}`, {
      method: route.method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(route.body ? { 'content-type': 'application/json' } : {}),
        ...(route.path(world) === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}),
      },
      ...(route.body ? { body: JSON.stringify(route.body(world)) } : {}),
    });
    await response.arrayBuffer();
    expect(response.status).toBe(status);
  });

  it.each(TOOL_ROWS)("relay_tool $name as the admin's agent → $agent", async ({ call, agent }) => {
    const { action, ...args } = call(world);
    // The agent is the admin's session "Admin desk" itself: it may read itself, never stop itself.
    const result = await agentClient.callTool({ name: 'relay_tool', arguments: { action, ...args } });
    const body = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { ok: boolean; code?: string };
    expect(body.ok ? 'ok' : body.code).toBe(agent);
  });

  it.each(TOOL_ROWS)('relay_tool $name as the paired relay → $relay', async ({ call, relay: expected }) => {
    const { action, ...args } = call(world);
    const response = await fetch(`${relay.gatewayUrl}/relay/v1/tool`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.relay}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action, arguments: args }),
    });
    const body = (await response.json()) as { ok: boolean; code?: string };
    expect(body.ok ? 'ok' : body.code).toBe(expected);
  });
});
