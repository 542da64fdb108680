// The web console's side of the gateway, through the real app (buildApp) and fastify inject, in front of in-memory
// owners: sign-in with a user token sets an HttpOnly SameSite=Strict cookie that stands for the bearer token on the
// user API; a cookie write needs the CSRF echo and this relay's Origin; sign out clears the cookies; the console's
// page is served at / and at every console address (relay_tool's openUrl among them), or a page saying how to build
// it; the live-updates stream sends the Inbox's count and a new update when it changes.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@relay/errors';
import { createLogger } from '@relay/telemetry';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/adapters/http/build-app.ts';
import { registerConsoleStatic } from '../src/adapters/http/console/console-static.ts';
import type { AuthenticatedCaller } from '../src/domain/caller.ts';
import { sessionUrl } from '../src/app/views/turn-result.ts';
import type { PairingClient, QuestionClient, SessionClient } from '../src/app/ports.ts';
import { CardDecider, CardKind, CardStatus, type Card } from '@relay/proto/relay/question/v1/question_service';

const USER_TOKEN = 'rly_u_console_user_token';
const SESSION_TOKEN = 'rly_s_console_session_token';
const OTHER_USER_TOKEN = 'rly_u_console_other_user_token';
const HOST = '127.0.0.1:7420';

const callers: Record<string, AuthenticatedCaller> = {
  [USER_TOKEN]: { userId: 'u-ada', role: 'member' },
  [SESSION_TOKEN]: { userId: 'u-ada', sessionId: 'sess-1', role: 'member' },
  [OTHER_USER_TOKEN]: { userId: 'u-bob', role: 'member' },
};

let pendingCards: Card[] = [];
const decided: unknown[] = [];

function card(id: string): Card {
  return {
    id,
    userId: 'u-ada',
    sessionId: 'sess-1',
    kind: CardKind.CARD_KIND_APPROVAL,
    title: 'Start a session',
    lines: [],
    options: [],
    status: CardStatus.CARD_STATUS_PENDING,
    answer: '',
    choices: [],
    createdAt: new Date('2026-12-01T10:00:00Z'),
    decidedAt: undefined,
  };
}

const sessions = {
  async authenticate({ token }: { token: string }) {
    const caller = callers[token];
    if (caller === undefined) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown token');
    return { caller: { userId: caller.userId, sessionId: caller.sessionId ?? '' }, role: caller.role, external: false };
  },
  async listUsers() {
    return { users: [{ id: 'u-ada', name: 'Ada', role: 'member', createdAt: new Date('2026-12-01T00:00:00Z') }] };
  },
  async listSessions() {
    return { sessions: [] };
  },
  async createSignInLink({ userId }: { userId: string }) {
    const link = `rly_l_link_${signInLinks.size + 1}`;
    signInLinks.set(link, userId);
    return { link, expiresAt: new Date('2026-12-01T10:10:00Z') };
  },
  // Spent on the first redeem, as the session service does.
  async redeemSignInLink({ link }: { link: string }) {
    const userId = signInLinks.get(link);
    signInLinks.delete(link);
    if (userId === undefined) throw new AppError('UNAUTHENTICATED', 'unauthenticated', 'unknown link');
    const token = `rly_u_from_${link}`;
    callers[token] = { userId, role: 'member' };
    return { token, userId, role: 'member', expiresAt: new Date('2026-12-08T10:00:00Z') };
  },
  // Only a link's token ends; a personal one is left alone.
  async endSignIn({ token }: { token: string }) {
    if (!token.startsWith('rly_u_from_')) return { ended: false };
    delete callers[token];
    return { ended: true };
  },
} as unknown as SessionClient;
const signInLinks = new Map<string, string>();

const questions = {
  async listCards() {
    return { cards: pendingCards };
  },
  async listAsks() {
    return { asks: [] };
  },
  async decideCard(decision: { cardId: string }) {
    decided.push(decision);
    return { card: { ...card(decision.cardId), status: CardStatus.CARD_STATUS_ALLOWED, decidedAt: new Date('2026-12-01T10:01:00Z') } };
  },
} as unknown as QuestionClient;

let app: FastifyInstance;

beforeAll(async () => {
  app = buildApp({
    relayName: 'desk',
    publicUrl: `http://${HOST}`,
    openUrlBase: `http://${HOST}`,
    sessions,
    pairing: {} as PairingClient,
    questions,
    logger: createLogger({ name: 'console-test', level: 'silent' }),
  });
  await app.ready();
});

afterEach(() => {
  pendingCards = [];
  decided.length = 0;
});

afterAll(async () => {
  await app.close();
});

/** The cookies a response sets, by name: value and attributes. */
function setCookies(response: LightMyRequestResponse): Map<string, string> {
  const header = response.headers['set-cookie'];
  const list = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return new Map(list.map((cookie) => [cookie.slice(0, cookie.indexOf('=')), cookie]));
}

async function signIn(token = USER_TOKEN): Promise<{ cookie: string; csrf: string }> {
  const response = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST, origin: `http://${HOST}` }, payload: { token } });
  expect(response.statusCode).toBe(200);
  const cookies = setCookies(response);
  const session = /^relay_session=([^;]*)/.exec(cookies.get('relay_session') ?? '')?.[1] ?? '';
  const csrf = /^relay_csrf=([^;]*)/.exec(cookies.get('relay_csrf') ?? '')?.[1] ?? '';
  return { cookie: `relay_session=${session}; relay_csrf=${csrf}`, csrf };
}

describe('signing in', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and a readable CSRF cookie, and answers who signed in', async () => {
    const response = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: { token: USER_TOKEN } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ user: { id: 'u-ada', role: 'member' } });
    const cookies = setCookies(response);
    expect(cookies.get('relay_session')).toMatch(/^relay_session=[^;]+; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
    expect(cookies.get('relay_csrf')).toMatch(/^relay_csrf=[A-Za-z0-9_-]{32}; Path=\/; Max-Age=604800; SameSite=Strict$/);
  });

  it('refuses an unknown token with 401 and sets no cookie', async () => {
    const response = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: { token: 'rly_u_made_up' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('UNAUTHENTICATED');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it("refuses a session's token with 403 REMOTE_RELAY_FORBIDDEN", async () => {
    const response = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: { token: SESSION_TOKEN } });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a sign-in posted from another site', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/console/v1/sign-in',
      headers: { host: HOST, origin: 'https://evil.example' },
      payload: { token: USER_TOKEN },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('makes a one-time link for a user token, which signs in once with a cookie of its own token', async () => {
    const made = await app.inject({ method: 'POST', url: '/api/v1/sign-in-links', headers: { host: HOST, authorization: `Bearer ${USER_TOKEN}` } });
    expect(made.statusCode).toBe(200);
    const { url, expiresAt } = made.json();
    expect(url).toMatch(new RegExp(`^http://${HOST.replace('.', '\\.')}/#link=rly_l_`));
    expect(expiresAt).toBe('2026-12-01T10:10:00.000Z');
    const link = new URL(url).hash.slice('#link='.length);
    const first = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: { link } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ user: { id: 'u-ada', role: 'member' } });
    expect(setCookies(first).get('relay_session')).toMatch(/^relay_session=rly_u_from_rly_l_[^;]+; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
    const again = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: { link } });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ code: 'UNAUTHENTICATED', error: expect.stringContaining('used already or has expired') });
    expect(again.headers['set-cookie']).toBeUndefined();

    // Signing out ends the link's token: the cookie's value no longer works anywhere.
    const token = /^relay_session=([^;]*)/.exec(setCookies(first).get('relay_session') ?? '')?.[1] ?? '';
    const out = await app.inject({ method: 'POST', url: '/console/v1/sign-out', headers: { host: HOST, cookie: `relay_session=${token}` } });
    expect(out.json()).toEqual({ signedOut: true, tokenEnded: true });
    const after = await app.inject({ method: 'GET', url: '/api/v1/me', headers: { host: HOST, authorization: `Bearer ${decodeURIComponent(token)}` } });
    expect(after.statusCode).toBe(401);
  });

  it("makes no link for a session's token", async () => {
    const made = await app.inject({ method: 'POST', url: '/api/v1/sign-in-links', headers: { host: HOST, authorization: `Bearer ${SESSION_TOKEN}` } });
    expect(made.statusCode).toBe(403);
    expect(signInLinks.size).toBe(0);
  });

  it('refuses a body without a token with 400 REMOTE_RELAY_INVALID_INPUT', async () => {
    const response = await app.inject({ method: 'POST', url: '/console/v1/sign-in', headers: { host: HOST }, payload: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });
});

describe('the session cookie on the user API', () => {
  it('authenticates a read as the bearer token would', async () => {
    const { cookie } = await signIn();
    const response = await app.inject({ method: 'GET', url: '/api/v1/me', headers: { host: HOST, cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ user: { id: 'u-ada', name: 'Ada', role: 'member' } });
  });

  it('is no sign-in without the cookie: 401', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/me', headers: { host: HOST } });
    expect(response.statusCode).toBe(401);
  });

  it('lets a write go with the CSRF echo from this relay, as the signed-in user', async () => {
    const { cookie, csrf } = await signIn();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/cards/card-1',
      headers: { host: HOST, cookie, origin: `http://${HOST}`, 'x-relay-csrf': csrf },
      payload: { decision: 'allow' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().card.status).toBe('allowed');
    expect(decided).toEqual([
      {
        userId: 'u-ada',
        cardId: 'card-1',
        decision: 'allow',
        answer: '',
        choices: [],
        agentSessionId: '',
        decidedBy: CardDecider.CARD_DECIDER_USER,
        dryRun: false,
      },
    ]);
  });

  it.each([
    ['without the X-Relay-CSRF header', {}],
    ['with an X-Relay-CSRF header that is not the cookie', { 'x-relay-csrf': 'not-the-cookie' }],
  ])('refuses a write %s with 403 REMOTE_RELAY_FORBIDDEN before any owner is asked', async (_what, extra) => {
    const { cookie } = await signIn();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/cards/card-1',
      headers: { host: HOST, cookie, ...extra },
      payload: { decision: 'allow' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(decided).toEqual([]);
  });

  it('refuses a write from another Origin even with the CSRF echo', async () => {
    const { cookie, csrf } = await signIn();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/cards/card-1',
      headers: { host: HOST, cookie, origin: 'https://evil.example', 'x-relay-csrf': csrf },
      payload: { decision: 'allow' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('REMOTE_RELAY_FORBIDDEN');
    expect(decided).toEqual([]);
  });

  it('leaves a request with a bearer token as it is: no CSRF echo needed', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/cards/card-1',
      headers: { host: HOST, authorization: `Bearer ${USER_TOKEN}`, cookie: 'relay_session=rly_u_other' },
      payload: { decision: 'allow' },
    });
    expect(response.statusCode).toBe(200);
    expect(decided).toHaveLength(1);
  });

  it('signing out clears both cookies, and leaves a personal token working', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/console/v1/sign-out',
      headers: { host: HOST, origin: `http://${HOST}`, cookie: `relay_session=${USER_TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ signedOut: true, tokenEnded: false });
    expect((await app.inject({ method: 'GET', url: '/api/v1/me', headers: { host: HOST, authorization: `Bearer ${USER_TOKEN}` } })).statusCode).toBe(200);
    const cookies = setCookies(response);
    expect(cookies.get('relay_session')).toMatch(/^relay_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
    expect(cookies.get('relay_csrf')).toMatch(/^relay_csrf=; Path=\/; Max-Age=0; SameSite=Strict$/);
  });
});

describe("the console's page and files", () => {
  let dist: string;
  let served: FastifyInstance;
  let missing: FastifyInstance;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="app"></div><script type="module" src="/assets/index-abc.js"></script>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log("console")');
    served = Fastify();
    registerConsoleStatic(served, dist);
    missing = Fastify();
    registerConsoleStatic(missing, join(dist, 'not-there'));
    await Promise.all([served.ready(), missing.ready()]);
  });

  afterAll(async () => {
    await Promise.all([served.close(), missing.close()]);
    rmSync(dist, { recursive: true, force: true });
  });

  it.each(['/', '/inbox', '/sessions/sess-1', new URL(sessionUrl('http://127.0.0.1:7420', 'sess 1/x')).pathname])(
    'answers the page at %s, allowed to run only its own scripts',
    async (url) => {
      const response = await served.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<div id="app">');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    },
  );

  it('serves an asset with its type, cached for good (its name is its hash)', async () => {
    const response = await served.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.body).toBe('console.log("console")');
  });

  it.each(['/assets/..%2Findex.html', '/assets/.hidden.js', '/assets/nothing.js', '/assets/index-abc.exe'])('answers 404 for %s', async (url) => {
    const response = await served.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
  });

  it('without a build, answers 503 with a page saying how to build the console', async () => {
    const response = await missing.inject({ method: 'GET', url: '/sessions/sess-1' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('npm run build --workspace @relay/console');
  });

  it("the gateway itself answers relay_tool's openUrl with the console's page (or the build note)", async () => {
    const response = await app.inject({ method: 'GET', url: new URL(sessionUrl(`http://${HOST}`, 'sess-1')).pathname, headers: { host: HOST } });
    expect([200, 503]).toContain(response.statusCode);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('live updates', () => {
  let eventsUrl: string;
  const aborts: AbortController[] = [];

  beforeAll(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening on a TCP port');
    eventsUrl = `http://127.0.0.1:${address.port}/api/v1/events`;
  });

  afterAll(() => {
    for (const abort of aborts) abort.abort();
  });

  /** Opens a stream with `cookie`; `next(event)` answers the data of the next such event, `ended` whether the stream ended. */
  async function openStream(cookie: string) {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(eventsUrl, { headers: { cookie }, signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    let done = false;
    return {
      async next<T>(event: string): Promise<T> {
        for (;;) {
          const match = new RegExp(`event: ${event}\\ndata: (.*)\\n\\n`).exec(buffered);
          if (match) {
            buffered = buffered.slice(match.index + match[0].length);
            return JSON.parse(match[1]!) as T;
          }
          if (done) throw new Error(`the stream ended without ${event}`);
          const read = await reader.read();
          done = read.done;
          buffered += read.value ?? '';
        }
      },
      async ended(): Promise<boolean> {
        while (!done) done = (await reader.read()).done;
        return done;
      },
    };
  }

  it('streams the Inbox count to a signed-in page and a new update when a card comes', async () => {
    const { cookie } = await signIn();
    const stream = await openStream(cookie);
    const nextUpdate = () => stream.next<{ inboxCount: number; inbox: string }>('update');
    const first = await nextUpdate();
    expect(first.inboxCount).toBe(0);
    pendingCards = [card('card-9')];
    const second = await nextUpdate();
    expect(second.inboxCount).toBe(1);
    expect(second.inbox).not.toBe(first.inbox);
  });

  it("ends a user's oldest stream past 20 open ones, saying why, so the page does not reconnect", async () => {
    const { cookie } = await signIn(OTHER_USER_TOKEN);
    const oldest = await openStream(cookie);
    await oldest.next('update');
    for (let opened = 1; opened < 20; opened += 1) await openStream(cookie);
    const newest = await openStream(cookie);
    expect(await oldest.next<{ message: string }>('replaced')).toEqual({
      message: 'More than 20 console pages of yours are open; this one stopped updating. Reload it to update it again.',
    });
    expect(await oldest.ended()).toBe(true);
    expect(await newest.next<{ inboxCount: number }>('update')).toMatchObject({ inboxCount: 0 });
  });

  it('refuses the stream without a sign-in', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/events', headers: { host: HOST } });
    expect(response.statusCode).toBe(401);
  });
});
