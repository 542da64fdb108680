import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import { authenticate } from '../src/app/users/authenticate.ts';
import { createExternalSession, DEFAULT_EXTERNAL_TITLE, MAX_TITLE_LENGTH } from '../src/app/sessions/create-external-session.ts';
import { createUser, MAX_USER_NAME_LENGTH } from '../src/app/users/create-user.ts';
import { NEW_SESSION_SETTINGS, type Session } from '../src/domain/sessions/session.ts';
import { listSessions } from '../src/app/sessions/list-sessions.ts';
import { createSignInLink, endSignIn, LINK_SIGN_IN_DAYS, redeemSignInLink, SIGN_IN_LINK_MINUTES } from '../src/app/users/sign-in-links.ts';
import { getRelaySettings, seedRelaySettings, updateRelaySettings } from '../src/app/settings/relay-settings.ts';
import { fixedCrypto } from './fixed-crypto.ts';
import { InMemorySessionStore } from './in-memory-session-store.ts';
import type { SessionReads } from '../src/app/ports.ts';

const NOW = new Date('2026-11-30T10:00:00Z');

/** The relay's settings, seeded as the service seeds them before it serves (Authenticate reads them along). */
const SEEDED = { agentSessionsEnabled: true, maxWaitSeconds: 900, maxTurnMinutes: 60, taskQuietMinutes: 10 };

/** A store and the use cases' deps over it; `seeded`: with the relay's settings seeded, as in a running service. */
function setup(seeded = true) {
  const store = new InMemorySessionStore();
  if (seeded) store.settings = SEEDED;
  const crypto = fixedCrypto();
  return { store, deps: { store, tokens: store, ids: crypto, secrets: crypto, hasher: crypto } };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

function session(overrides: Partial<Session> & { id: string }): Session {
  return {
    userId: 'u1',
    title: overrides.id,
    provider: 'script',
    model: 'm',
    origin: 'hosted',
    state: 'idle',
    cwd: '/w',
    archived: false,
    messageCount: 0,
    createdAt: NOW,
    lastActivityAt: NOW,
    ...NEW_SESSION_SETTINGS,
    ...overrides,
  };
}

describe('createUser', () => {
  it('stores the user and only the hash of a user token it returns once', async () => {
    const { store, deps } = setup();
    const { user, token } = await createUser(deps, { name: '  Ada ' }, NOW);
    expect(user).toEqual({ id: 'id-1', name: 'Ada', role: 'admin', createdAt: NOW });
    expect(token).toBe('rly_u_secret-1');
    expect([...store.tokens.keys()]).toEqual([`hash(${token})`]);
    expect(store.tokens.get(`hash(${token})`)).toMatchObject({ kind: 'user', userId: 'id-1', sessionId: null, createdAt: NOW });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'blank'],
    ['x'.repeat(MAX_USER_NAME_LENGTH + 1), 'too long'],
  ])('refuses a name that is %s (%s)', async (name) => {
    const { store, deps } = setup();
    expect(await codeOf(createUser(deps, { name }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(store.users.size).toBe(0);
  });
});

describe('createExternalSession', () => {
  it('creates an idle external session, its session token and its event, all at now', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const { session: created, token } = await createExternalSession(deps, { userId: user.id, title: 'My IDE' }, NOW);
    expect(created).toEqual({
      id: 'id-2',
      userId: user.id,
      title: 'My IDE',
      provider: 'external',
      model: '',
      origin: 'external',
      state: 'idle',
      cwd: '',
      archived: false,
      messageCount: 0,
      createdAt: NOW,
      lastActivityAt: NOW,
      ...NEW_SESSION_SETTINGS,
    });
    expect(token).toBe('rly_s_secret-2');
    expect(store.tokens.get(`hash(${token})`)).toMatchObject({ kind: 'session', userId: user.id, sessionId: 'id-2' });
    expect(store.events).toEqual([{ eventId: 'id-3', occurredAt: NOW, session: created }]);
  });

  it('gives an untitled session a default title', async () => {
    const { deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const { session: created } = await createExternalSession(deps, { userId: user.id, title: ' ' }, NOW);
    expect(created.title).toBe(DEFAULT_EXTERNAL_TITLE);
  });

  it('refuses an unknown user, a missing user id and an overlong title', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    expect(await codeOf(createExternalSession(deps, { userId: 'nobody', title: 't' }, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
    expect(await codeOf(createExternalSession(deps, { userId: '', title: 't' }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await codeOf(createExternalSession(deps, { userId: user.id, title: 'x'.repeat(MAX_TITLE_LENGTH + 1) }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(store.sessions.size).toBe(0);
    expect(store.events).toEqual([]);
  });
});

describe('authenticate', () => {
  it('resolves a user token to its user and a session token to its session', async () => {
    const { deps } = setup();
    const { user, token: userToken } = await createUser(deps, { name: 'Ada' }, NOW);
    const { session: created, token: sessionToken } = await createExternalSession(deps, { userId: user.id, title: 't' }, NOW);
    expect((await authenticate(deps, userToken, NOW)).caller).toEqual({ userId: user.id, role: 'admin' });
    expect((await authenticate(deps, sessionToken, NOW)).caller).toEqual({ userId: user.id, role: 'admin', sessionId: created.id, external: true });
  });

  it("answers the relay's settings along with the caller", async () => {
    const { store, deps } = setup();
    const { token } = await createUser(deps, { name: 'Ada' }, NOW);
    expect((await authenticate(deps, token, NOW)).settings).toEqual(SEEDED);
    store.settings = { ...SEEDED, agentSessionsEnabled: false };
    expect((await authenticate(deps, token, NOW)).settings.agentSessionsEnabled).toBe(false);
  });

  it('refuses a token that is empty, foreign, unknown, or of the other kind than its prefix says', async () => {
    const { store, deps } = setup();
    const { token } = await createUser(deps, { name: 'Ada' }, NOW);
    const forged = token.replace('rly_u_', 'rly_s_');
    store.tokens.set(`hash(${forged})`, { ...store.tokens.get(`hash(${token})`)!, tokenHash: `hash(${forged})` });
    for (const bad of ['', 'Bearer x', 'rly_u_unknown', 'rly_s_unknown', forged]) {
      expect(await codeOf(authenticate(deps, bad, NOW)), bad).toBe('UNAUTHENTICATED');
    }
  });

  it('refuses the token of an archived or vanished session', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const first = await createExternalSession(deps, { userId: user.id, title: 'a' }, NOW);
    const second = await createExternalSession(deps, { userId: user.id, title: 'b' }, NOW);
    store.sessions.set(first.session.id, { ...first.session, archived: true });
    store.sessions.delete(second.session.id);
    expect(await codeOf(authenticate(deps, first.token, NOW))).toBe('UNAUTHENTICATED');
    expect(await codeOf(authenticate(deps, second.token, NOW))).toBe('UNAUTHENTICATED');
  });

  it("refuses a removed user's token and their session's", async () => {
    const { store, deps } = setup();
    const { user, token } = await createUser(deps, { name: 'Ada' }, NOW);
    const { token: sessionToken } = await createExternalSession(deps, { userId: user.id, title: 't' }, NOW);
    store.users.delete(user.id);
    expect(await codeOf(authenticate(deps, token, NOW))).toBe('UNAUTHENTICATED');
    expect(await codeOf(authenticate(deps, sessionToken, NOW))).toBe('UNAUTHENTICATED');
  });

  it('refuses a token from the instant it expires, and a session token bound to no session', async () => {
    const { store, deps } = setup();
    const { user, token } = await createUser(deps, { name: 'Ada' }, NOW);
    const stored = store.tokens.get(`hash(${token})`)!;
    store.tokens.set(stored.tokenHash, { ...stored, expiresAt: NOW });
    expect((await authenticate(deps, token, new Date(NOW.getTime() - 1))).caller).toEqual({ userId: user.id, role: 'admin' });
    expect(await codeOf(authenticate(deps, token, NOW))).toBe('UNAUTHENTICATED');
    const unbound = 'rly_s_unbound';
    store.tokens.set(`hash(${unbound})`, { ...stored, tokenHash: `hash(${unbound})`, kind: 'session', expiresAt: null });
    expect(await codeOf(authenticate(deps, unbound, NOW))).toBe('UNAUTHENTICATED');
  });

  it("answers external only for an external session's token, and a member's role", async () => {
    const { store, deps } = setup();
    await createUser(deps, { name: 'Ada' }, NOW);
    const { user } = await createUser(deps, { name: 'Bo' }, NOW);
    const { session: created, token } = await createExternalSession(deps, { userId: user.id, title: 't' }, NOW);
    expect((await authenticate(deps, token, NOW)).caller).toEqual({ userId: user.id, role: 'member', sessionId: created.id, external: true });
    store.sessions.set(created.id, { ...created, origin: 'hosted' });
    expect((await authenticate(deps, token, NOW)).caller).toEqual({ userId: user.id, role: 'member', sessionId: created.id });
  });
});

describe('sign-in links', () => {
  const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

  it('signs in once: the link makes a user token that works until it expires, and is refused the second time', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const { link, expiresAt } = await createSignInLink(deps, user.id, NOW);
    expect(expiresAt).toEqual(at(SIGN_IN_LINK_MINUTES));
    expect([...store.signInLinks.keys()]).toEqual([`hash(${link})`]);
    const redeemed = await redeemSignInLink(deps, link, at(1));
    expect(redeemed.user.id).toBe(user.id);
    expect(redeemed.expiresAt).toEqual(at(1 + LINK_SIGN_IN_DAYS * 24 * 60));
    expect((await authenticate(deps, redeemed.token, at(2))).caller).toEqual({ userId: user.id, role: 'admin' });
    expect(await codeOf(authenticate(deps, redeemed.token, redeemed.expiresAt))).toBe('UNAUTHENTICATED');
    expect(await codeOf(redeemSignInLink(deps, link, at(2)))).toBe('UNAUTHENTICATED');
  });

  it('refuses a link once it expired, one that is not a link, and a removed user', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const late = await createSignInLink(deps, user.id, NOW);
    expect(await codeOf(redeemSignInLink(deps, late.link, at(SIGN_IN_LINK_MINUTES)))).toBe('UNAUTHENTICATED');
    const { token } = await createUser(deps, { name: 'Bo' }, NOW);
    expect(await codeOf(redeemSignInLink(deps, token, NOW))).toBe('UNAUTHENTICATED');
    const orphan = await createSignInLink(deps, user.id, NOW);
    store.users.delete(user.id);
    expect(await codeOf(redeemSignInLink(deps, orphan.link, NOW))).toBe('UNAUTHENTICATED');
    expect(await codeOf(createSignInLink(deps, user.id, NOW))).toBe('REMOTE_RELAY_NOT_FOUND');
  });

  it("signing out ends a link's token at once and leaves a personal token working", async () => {
    const { deps } = setup();
    const { user, token: personal } = await createUser(deps, { name: 'Ada' }, NOW);
    const { token } = await redeemSignInLink(deps, (await createSignInLink(deps, user.id, NOW)).link, NOW);
    expect(await endSignIn(deps, token)).toBe(true);
    expect(await codeOf(authenticate(deps, token, NOW))).toBe('UNAUTHENTICATED');
    expect(await endSignIn(deps, personal)).toBe(false);
    expect((await authenticate(deps, personal, NOW)).caller).toEqual({ userId: user.id, role: 'admin' });
  });

  it('a new link clears the links and sign-in tokens expired by then', async () => {
    const { store, deps } = setup();
    const { user } = await createUser(deps, { name: 'Ada' }, NOW);
    const old = await createSignInLink(deps, user.id, NOW);
    const used = await redeemSignInLink(deps, (await createSignInLink(deps, user.id, NOW)).link, NOW);
    await createSignInLink(deps, user.id, used.expiresAt);
    expect(store.signInLinks.has(`hash(${old.link})`)).toBe(false);
    expect(store.tokens.has(`hash(${used.token})`)).toBe(false);
    expect(store.signInLinks.size).toBe(1);
  });
});

describe('listSessions', () => {
  const at = (minute: number) => new Date(NOW.getTime() + minute * 60_000);
  /** A page that holds every session here. */
  const page = { limit: 100, offset: 0 };

  /**
   * The listing read from an in-memory store, in the order added (the order and pages are PgSessionReads',
   * session-listing.int.test.ts): no groups, starters or tasks; `held` is each session's calls' latest expiry; the note
   * along names the session it was read for.
   */
  function storeWith(sessions: Session[], held: Record<string, Date> = {}): Pick<SessionReads, 'listSessions'> {
    const store = new InMemorySessionStore();
    for (const s of sessions) store.sessions.set(s.id, s);
    return {
      listSessions: async (userId, filter, _page, _tasksEndedSince, pendingFor) => {
        const listed = await store.listSessions(userId, filter);
        return {
          sessions: listed.map((s) => ({ ...s, group: null, startedByTitle: '', callsHeldUntil: held[s.id] ?? null, hasTasks: false, lastTurn: null })),
          total: listed.length,
          pending: pendingFor === undefined ? undefined : { count: 1, previews: [`for ${pendingFor}`] },
        };
      },
    };
  }

  it.each([
    ['', ['live']],
    ['active', ['live']],
    ['archived', ['gone']],
    ['all', ['gone', 'live']],
  ])('scope "%s" lists %j', async (scope, expected) => {
    const store = storeWith([
      session({ id: 'gone', archived: true, lastActivityAt: at(1) }),
      session({ id: 'live', lastActivityAt: at(2) }),
      session({ id: 'someone-else', userId: 'u2', lastActivityAt: at(3) }),
    ]);
    const { sessions: listed } = await listSessions(store, { userId: 'u1', scope, page }, NOW);
    expect(listed.map((s) => s.id)).toEqual(expected);
  });

  it('shows a session whose external call is held past now as running_turn', async () => {
    const store = storeWith([session({ id: 'editor', lastActivityAt: at(2) }), session({ id: 'lapsed', lastActivityAt: at(1) })], {
      editor: at(1),
      lapsed: NOW,
    });
    const { sessions: listed } = await listSessions(store, { userId: 'u1', scope: '', page }, NOW);
    expect(listed.map((s) => [s.id, s.state])).toEqual([
      ['editor', 'running_turn'],
      ['lapsed', 'idle'],
    ]);
  });

  it('answers the pending note read along for the agent asked about, and none when none is asked about', async () => {
    const store = storeWith([session({ id: 'editor' })]);
    expect((await listSessions(store, { userId: 'u1', scope: '', page, pendingFor: 'editor' }, NOW)).pending).toEqual({ count: 1, previews: ['for editor'] });
    expect((await listSessions(store, { userId: 'u1', scope: '', page }, NOW)).pending).toBeUndefined();
  });

  it('refuses a listing of every session (limit 0) and one past a page, and reads nothing', async () => {
    let read = 0;
    const store = { listSessions: async () => ((read += 1), { sessions: [], total: 0, pending: undefined }) };
    for (const limit of [0, 101, 1.5]) {
      const refused = await listSessions(store, { userId: 'u1', scope: '', page: { limit, offset: 0 } }, NOW).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT', details: { field: 'limit' } });
    }
    expect(read).toBe(0);
    await listSessions(store, { userId: 'u1', scope: '', page: { limit: 100, offset: 0 } }, NOW);
    expect(read).toBe(1);
  });

  it('refuses an unknown scope and a missing user id', async () => {
    const store = storeWith([]);
    expect(await codeOf(listSessions(store, { userId: 'u1', scope: 'recent', page }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(await codeOf(listSessions(store, { userId: '', scope: '', page }, NOW))).toBe('REMOTE_RELAY_INVALID_INPUT');
  });
});

describe('relay settings', () => {
  it('seeds the configured defaults once; the stored settings win afterwards', async () => {
    const { store } = setup(false);
    const defaults = { agentSessionsEnabled: false, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };
    expect(await seedRelaySettings(store, defaults)).toEqual(defaults);
    store.settings = { ...defaults, maxWaitSeconds: 1200 };
    expect(await seedRelaySettings(store, { ...defaults, agentSessionsEnabled: true })).toEqual({ ...defaults, maxWaitSeconds: 1200 });
    expect(await getRelaySettings(store)).toEqual({ ...defaults, maxWaitSeconds: 1200 });
  });

  const defaults = { agentSessionsEnabled: false, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };

  it('changes what is given and names what changed; a value equal to the stored one is no change', async () => {
    const { store } = setup(false);
    await seedRelaySettings(store, defaults);
    expect(await updateRelaySettings(store, { agentSessionsEnabled: true, maxWaitSeconds: 600, taskQuietMinutes: 25 })).toEqual({
      settings: { ...defaults, agentSessionsEnabled: true, taskQuietMinutes: 25 },
      changed: ['agent_sessions_enabled', 'task_quiet_minutes'],
    });
    expect(await updateRelaySettings(store, { maxTurnMinutes: 60 })).toEqual({
      settings: { ...defaults, agentSessionsEnabled: true, taskQuietMinutes: 25 },
      changed: [],
    });
  });

  it.each([
    [{ maxWaitSeconds: 119 }, 'max_wait_seconds'],
    [{ maxWaitSeconds: 3601 }, 'max_wait_seconds'],
    [{ maxWaitSeconds: 600.5 }, 'max_wait_seconds'],
    [{ maxTurnMinutes: 0 }, 'max_turn_minutes'],
    [{ maxTurnMinutes: 1441 }, 'max_turn_minutes'],
    [{ taskQuietMinutes: 0 }, 'task_quiet_minutes'],
    [{ agentSessionsEnabled: true, taskQuietMinutes: 5000 }, 'task_quiet_minutes'],
  ])('refuses %j with REMOTE_RELAY_INVALID_INPUT naming %s, and changes nothing', async (change, field) => {
    const { store } = setup(false);
    await seedRelaySettings(store, defaults);
    await expect(updateRelaySettings(store, change)).rejects.toMatchObject({ code: 'REMOTE_RELAY_INVALID_INPUT', details: { field } });
    expect(await getRelaySettings(store)).toEqual(defaults);
  });

  it('takes the range ends: 120 and 3600 s, 1 and 1440 min', async () => {
    const { store } = setup(false);
    await seedRelaySettings(store, defaults);
    expect((await updateRelaySettings(store, { maxWaitSeconds: 120, maxTurnMinutes: 1440, taskQuietMinutes: 1 })).settings).toEqual({
      ...defaults,
      maxWaitSeconds: 120,
      maxTurnMinutes: 1440,
      taskQuietMinutes: 1,
    });
    expect((await updateRelaySettings(store, { maxWaitSeconds: 3600 })).settings.maxWaitSeconds).toBe(3600);
  });
});
