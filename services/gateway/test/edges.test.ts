// The gateway's edges on the real app (Fastify inject): Host and Origin on /mcp, the failed-try limits on
// tokens and pairing codes, the bounds of the HTTP inputs and the security headers. The owners behind it are
// small in-process fakes of the gateway's own ports: nothing here gets as far as a service.
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type EdgeSettings } from '../src/adapters/http/build-app.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../src/app/ports.ts';

const USER_TOKEN = 'rly_u_good';
const SESSION_TOKEN = 'rly_s_good';
const RELAY_TOKEN = 'rly_r_good';
const GOOD_CODE = 'ABCD-EFGH-JKMN';

interface Seen {
  authenticated: string[];
  reads: string[];
}

function build(edges: Partial<EdgeSettings> = {}): { app: FastifyInstance; seen: Seen } {
  const seen: Seen = { authenticated: [], reads: [] };
  const unknown = () => new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown token');
  const sessions = {
    async authenticate({ token }: { token: string }) {
      seen.authenticated.push(token);
      if (token === USER_TOKEN) return { caller: { userId: 'u1', sessionId: '' }, role: 'admin', external: false };
      if (token === SESSION_TOKEN) return { caller: { userId: 'u1', sessionId: 's1' }, role: 'admin', external: false };
      throw unknown();
    },
    async readSession({ sessionId }: { sessionId: string }) {
      seen.reads.push(sessionId);
      throw new AppError('REMOTE_RELAY_NOT_FOUND', 'not_found', `No session ${sessionId} on this relay.`);
    },
    async getRelaySettings() {
      return { settings: { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 } };
    },
  } as unknown as SessionClient;
  const pairing = {
    async authenticateRelay({ token }: { token: string }) {
      if (token === RELAY_TOKEN) return { relayName: 'far', userId: 'u1', acceptPrompts: true };
      throw unknown();
    },
    async acceptPairing(input: { code: string }) {
      if (input.code !== GOOD_CODE) throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'The pairing code is unknown, used or expired.');
      return { name: 'desk', url: 'https://desk.example.com', version: '0.9.19', token: 'rly_r_back' };
    },
    async listPairedRelays() {
      return { relays: [] };
    },
  } as unknown as PairingClient;
  const app = buildApp({
    relayName: 'desk',
    publicUrl: 'https://desk.example.com',
    openUrlBase: undefined,
    sessions,
    pairing,
    questions: {
      async listAsks() {
        return { asks: [] };
      },
    } as unknown as QuestionClient,
    logger: createLogger({ name: 'edges-test', level: 'silent' }),
    edges,
  });
  return { app, seen };
}

let current: FastifyInstance | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

function start(edges?: Partial<EdgeSettings>) {
  const built = build(edges);
  current = built.app;
  return built;
}

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const mcpHeaders = { authorization: `Bearer ${SESSION_TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('/mcp checks Host and Origin before anything else', () => {
  it.each([
    ['loopback on any port', { host: '127.0.0.1:51234' }],
    ['localhost', { host: 'localhost:7420' }],
    ["the public URL's host", { host: 'desk.example.com', origin: 'https://desk.example.com' }],
    ['a host RELAY_ALLOWED_HOSTS names', { host: 'gateway:7420' }],
    ['a browser page of loopback', { host: '127.0.0.1:7420', origin: 'http://localhost:3000' }],
  ])('answers under %s', async (_label, headers) => {
    const { app } = start({ allowedHosts: ['gateway'] });
    const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, ...headers }, payload: listTools });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['a foreign Host (a rebound name)', { host: 'evil.example:7420' }, 'does not answer /mcp as "evil.example:7420"'],
    ['a port other than the allowed entry names', { host: 'gateway:9999' }, 'does not answer /mcp as "gateway:9999"'],
    ['a foreign Origin', { host: '127.0.0.1:7420', origin: 'http://evil.example' }, 'the origin "http://evil.example"'],
    ['the null Origin', { host: '127.0.0.1:7420', origin: 'null' }, 'the origin "null"'],
  ])('refuses %s with 403 and checks no token', async (_label, headers, says) => {
    const { app, seen } = start({ allowedHosts: ['gateway:7420'] });
    const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, ...headers }, payload: listTools });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(response.json().error.message).toContain(says);
    expect(seen.authenticated).toEqual([]);
  });
});

describe('failed token checks are limited per presented token and per client, never against a valid token', () => {
  const get = (token: string, remoteAddress?: string) =>
    current!.inject({ method: 'GET', url: '/api/v1/relay', ...(remoteAddress ? { remoteAddress } : {}), headers: { authorization: `Bearer ${token}` } });

  it('lets every valid token in from an address that sent 200 bad ones: user, session (/mcp) and relay tokens, and a console sign-in', async () => {
    const { app } = start({ authFailuresPerMinute: 60 });
    const statuses = new Set<number>();
    for (let i = 0; i < 200; i += 1) statuses.add((await get(`rly_u_wrong_${i}`)).statusCode);
    // The address's failures are used up: its bad tokens are told to wait.
    expect([...statuses].sort()).toEqual([401, 429]);
    expect((await get(`rly_u_wrong_more`)).statusCode).toBe(429);

    expect((await get(USER_TOKEN)).statusCode).toBe(200);
    const mcp = await app.inject({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, host: '127.0.0.1' }, payload: listTools });
    expect(mcp.statusCode).toBe(200);
    const relay = await app.inject({ method: 'GET', url: '/relay/v1/hello', headers: { authorization: `Bearer ${RELAY_TOKEN}` } });
    expect(relay.statusCode).toBe(200);
    const signIn = await app.inject({
      method: 'POST',
      url: '/console/v1/sign-in',
      headers: { host: '127.0.0.1:7420', 'content-type': 'application/json' },
      payload: { token: USER_TOKEN },
    });
    expect(signIn.statusCode).toBe(200);
  });

  it('answers a client over its limit 429 with retry-after for each token that fails, still checking each', async () => {
    const { app, seen } = start({ authFailuresPerMinute: 3 });
    for (let i = 0; i < 3; i += 1) expect((await get(`rly_u_wrong_${i}`)).statusCode).toBe(401);
    const over = await get('rly_u_wrong_3');
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(seen.authenticated).toContain('rly_u_wrong_3');
    const relay = await app.inject({ method: 'GET', url: '/relay/v1/hello', headers: { authorization: 'Bearer rly_r_wrong' } });
    expect(relay.statusCode).toBe(429);
    expect(relay.json()).toMatchObject({ code: 'REMOTE_RELAY_AUTH' });
  });

  it('throttles a token that keeps failing, from any address, without asking the session service again', async () => {
    const { seen } = start({ authFailuresPerMinute: 3 });
    const addresses = ['203.0.113.7', '198.51.100.2', '192.0.2.9'];
    for (const address of addresses) expect((await get('rly_u_stale', address)).statusCode).toBe(401);
    const checked = seen.authenticated.length;
    const again = await get('rly_u_stale', '192.0.2.200');
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    expect(seen.authenticated).toHaveLength(checked);
    // Another address's valid token is not held up by it.
    expect((await get(USER_TOKEN, '192.0.2.200')).statusCode).toBe(200);
  });

  it("counts per address: another client's bad tokens still get 401", async () => {
    start({ authFailuresPerMinute: 1 });
    await get('rly_u_wrong_1', '203.0.113.7');
    const attacker = await get('rly_u_wrong_2', '203.0.113.7');
    const other = await get('rly_u_wrong_3', '198.51.100.2');
    expect([attacker.statusCode, other.statusCode]).toEqual([429, 401]);
  });

  it('does not count a good token', async () => {
    start({ authFailuresPerMinute: 1 });
    for (let i = 0; i < 3; i += 1) expect((await get(USER_TOKEN)).statusCode).toBe(200);
    expect((await get('rly_u_wrong')).statusCode).toBe(401);
  });

  it('takes a token far longer than any this relay mints as unknown without asking the session service', async () => {
    const { seen } = start();
    const response = await get('x'.repeat(5_000));
    expect(response.statusCode).toBe(401);
    expect(seen.authenticated).toEqual([]);
  });

  // An address, or CIDRs as the prod overlay gives for its ingress controller's pods (and loopback, where inject comes from).
  it.each(['127.0.0.1', '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.0/8'])(
    'names the client by X-Forwarded-For only behind a trusted proxy (%s)',
    async (trustedProxies) => {
      const { app } = start({ authFailuresPerMinute: 1, trustedProxies });
      const from = (token: string, client: string) =>
        app.inject({ method: 'GET', url: '/api/v1/relay', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });
      await from('rly_u_wrong_1', '203.0.113.7');
      const sameClient = await from('rly_u_wrong_2', '203.0.113.7');
      const otherClient = await from('rly_u_wrong_3', '198.51.100.2');
      const validFromSame = await from(USER_TOKEN, '203.0.113.7');
      expect([sameClient.statusCode, otherClient.statusCode, validFromSame.statusCode]).toEqual([429, 401, 200]);
    },
  );
});

describe('pairing code tries are limited per client address', () => {
  const pair = (code: string) => ({ code, name: 'far', url: 'https://far.example.com', version: '0.9.19', token: 'rly_r_far' });

  it('after the limit, refuses even the right code with 429 until the minute is over', async () => {
    const { app } = start({ pairingTriesPerMinute: 2 });
    for (const code of ['AAAA-AAAA-AAAA', 'BBBB-BBBB-BBBB']) {
      expect((await app.inject({ method: 'POST', url: '/relay/v1/pair', payload: pair(code) })).statusCode).toBe(401);
    }
    const right = await app.inject({ method: 'POST', url: '/relay/v1/pair', payload: pair(GOOD_CODE) });
    expect(right.statusCode).toBe(429);
    expect(right.json()).toMatchObject({ code: 'REMOTE_RELAY_AUTH' });
    expect(right.headers['retry-after']).toBeDefined();
  });

  it('lets the right code through while tries are left', async () => {
    const { app } = start({ pairingTriesPerMinute: 2 });
    await app.inject({ method: 'POST', url: '/relay/v1/pair', payload: pair('AAAA-AAAA-AAAA') });
    expect((await app.inject({ method: 'POST', url: '/relay/v1/pair', payload: pair(GOOD_CODE) })).statusCode).toBe(200);
  });
});

describe('the HTTP inputs keep the bounds relay_tool keeps', () => {
  const asUser = { authorization: `Bearer ${USER_TOKEN}` };

  it.each([
    ['a NUL in a body field', { method: 'POST', url: '/api/v1/sessions', payload: { text: 'hi\u0000', title: 'T' } }, '"text" in the body'],
    ['a lone surrogate in a body field', { method: 'POST', url: '/api/v1/sessions', payload: '{"text":"hi","title":"T\\ud800"}' }, '"title" in the body'],
    ['a title over 200 characters', { method: 'POST', url: '/api/v1/sessions', payload: { external: true, title: 't'.repeat(201) } }, '"title" in the body'],
    ['a session id over 64 characters in the path', { method: 'GET', url: `/api/v1/sessions/${'a'.repeat(90)}` }, '"id" in the path'],
    ['a session id that is no id', { method: 'GET', url: '/api/v1/sessions/my%20session' }, '"id" in the path'],
    ['a NUL in the path', { method: 'GET', url: '/api/v1/sessions/s1%00' }, '"id" in the path'],
    ['a NUL in the query', { method: 'GET', url: '/api/v1/sessions/s1/wait?message_id=m%00' }, '"message_id" in the query'],
    [
      'a NUL in a relay_tool call from a paired relay',
      { method: 'POST', url: '/relay/v1/tool', payload: { action: 'read_session', arguments: { session: 'a\u0000' } } },
      '"arguments.session" in the body',
    ],
  ])('answers 400 REMOTE_RELAY_INVALID_INPUT for %s, naming the field', async (_label, request, field) => {
    const { app, seen } = start();
    const response = await app.inject({ ...request, headers: { ...asUser, 'content-type': 'application/json' } } as InjectOptions);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(body.error).toContain(field);
    expect(body.error.length).toBeLessThan(300);
    expect(seen.reads).toEqual([]);
  });

  it('lets a well-formed id through to the owner', async () => {
    const { app, seen } = start();
    const response = await app.inject({ method: 'GET', url: '/api/v1/sessions/3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f', headers: asUser });
    expect(response.statusCode).toBe(404);
    expect(seen.reads).toEqual(['3f9c2a1e-7b04-4c1d-9e55-0a1b2c3d4e5f']);
  });
});

describe('security headers', () => {
  it('the JSON API answers with a CSP that allows nothing, nosniff and no framing', async () => {
    const { app } = start();
    const response = await app.inject({ method: 'GET', url: '/api/v1/relay', headers: { authorization: `Bearer ${USER_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('/mcp answers with them too, though the MCP transport writes the answer', async () => {
    const { app } = start();
    const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, host: '127.0.0.1' }, payload: listTools });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });
});
