import { AppError } from '@relay/errors';
import { describe, expect, it } from 'vitest';
import { cachedPairingOwner, cachedSessionOwner, ExpiringReads } from '../src/adapters/grpc/cached-owners.ts';
import type { RelaySettings } from '@relay/proto/relay/session/v1/session';
import type { AuthenticateResponse } from '@relay/proto/relay/session/v1/session_service';
import type { PairingSettings } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { PairingClient, SessionClient } from '../src/app/ports.ts';

const ALICE: AuthenticateResponse = { caller: { userId: 'alice', sessionId: 's1' }, role: 'admin', external: false, settings: undefined };
const SETTINGS: RelaySettings = { agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 };

/**
 * A session owner that counts its reads and knows the tokens in `tokens`; revoking forgets them all. With
 * `settingsAlong`, Authenticate answers the relay's settings too (as the session service does), once `answer` lets it.
 */
function countingSessions(tokens: Map<string, AuthenticateResponse>, settingsAlong = false, answer: () => Promise<void> = async () => {}) {
  const asked = { authenticate: 0, settings: 0 };
  let settings = SETTINGS;
  const owner = {
    async authenticate({ token }: { token: string }) {
      asked.authenticate += 1;
      const caller = tokens.get(token);
      const read = settings;
      await answer();
      if (caller === undefined) throw new AppError('REMOTE_RELAY_AUTH', 'unauthenticated', 'unknown token');
      return settingsAlong ? { ...caller, settings: read } : caller;
    },
    async rotateUserToken() {
      tokens.clear();
      return { token: 'new' };
    },
    async getRelaySettings() {
      asked.settings += 1;
      return { settings };
    },
    async updateRelaySettings(change: Partial<RelaySettings>) {
      settings = { ...settings, ...change };
      return { settings, changed: Object.keys(change) };
    },
    async listUsers() {
      return { users: [] };
    },
  } as unknown as SessionClient;
  return { owner, asked };
}

describe('ExpiringReads', () => {
  it('holds a value until its time is up, then reads again', async () => {
    let now = 0;
    let reads = 0;
    const cache = new ExpiringReads<number>(5_000, () => now);
    const read = async () => (reads += 1);
    expect(await cache.get('k', read)).toBe(1);
    now = 4_999;
    expect(await cache.get('k', read)).toBe(1);
    now = 5_000;
    expect(await cache.get('k', read)).toBe(2);
  });

  it('shares one read between concurrent misses and never holds a failure', async () => {
    let reads = 0;
    const cache = new ExpiringReads<number>(5_000, () => 0);
    const failing = async () => {
      reads += 1;
      throw new Error('no');
    };
    await Promise.all([expect(cache.get('k', failing)).rejects.toThrow('no'), expect(cache.get('k', failing)).rejects.toThrow('no')]);
    expect(reads).toBe(1);
    await expect(cache.get('k', failing)).rejects.toThrow('no');
    expect(reads).toBe(2);
  });
});

describe('cachedSessionOwner', () => {
  it('asks for a known token once within the time and again after it', async () => {
    let now = 0;
    const { owner, asked } = countingSessions(new Map([['rly_u_alice', ALICE]]));
    const cached = cachedSessionOwner(owner, { ttlMs: 5_000, nowMs: () => now });
    expect(await cached.authenticate({ token: 'rly_u_alice' })).toEqual(ALICE);
    expect(await cached.authenticate({ token: 'rly_u_alice' })).toEqual(ALICE);
    expect(asked.authenticate).toBe(1);
    now = 5_000;
    await cached.authenticate({ token: 'rly_u_alice' });
    expect(asked.authenticate).toBe(2);
  });

  it('asks about an unknown token every time', async () => {
    const { owner, asked } = countingSessions(new Map());
    const cached = cachedSessionOwner(owner, { nowMs: () => 0 });
    await expect(cached.authenticate({ token: 'rly_u_nobody' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(cached.authenticate({ token: 'rly_u_nobody' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect(asked.authenticate).toBe(2);
  });

  it('refuses a rotated token at once', async () => {
    const { owner } = countingSessions(new Map([['rly_u_alice', ALICE]]));
    const cached = cachedSessionOwner(owner, { nowMs: () => 0 });
    await cached.authenticate({ token: 'rly_u_alice' });
    await cached.rotateUserToken({ userId: 'alice', revoke: false });
    await expect(cached.authenticate({ token: 'rly_u_alice' })).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('reads the settings anew once they were changed here', async () => {
    const { owner, asked } = countingSessions(new Map());
    const cached = cachedSessionOwner(owner, { nowMs: () => 0 });
    expect((await cached.getRelaySettings({})).settings?.agentSessionsEnabled).toBe(true);
    await cached.getRelaySettings({});
    expect(asked.settings).toBe(1);
    await cached.updateRelaySettings({ agentSessionsEnabled: false });
    expect((await cached.getRelaySettings({})).settings?.agentSessionsEnabled).toBe(false);
  });

  it('holds the settings an Authenticate answered with, from when it was asked, as if read on their own', async () => {
    let now = 0;
    const { owner, asked } = countingSessions(new Map([['rly_u_alice', ALICE]]), true);
    const cached = cachedSessionOwner(owner, { ttlMs: 5_000, nowMs: () => now });
    await cached.authenticate({ token: 'rly_u_alice' });
    now = 4_999;
    expect((await cached.getRelaySettings({})).settings).toEqual(SETTINGS);
    expect(asked.settings).toBe(0);
    now = 5_000;
    await cached.getRelaySettings({});
    expect(asked.settings).toBe(1);
  });

  it('does not hold the settings of an Authenticate that a change of them here overtook', async () => {
    let letAnswer = () => {};
    const answered = new Promise<void>((resolve) => (letAnswer = resolve));
    const { owner, asked } = countingSessions(new Map([['rly_u_alice', ALICE]]), true, () => answered);
    const cached = cachedSessionOwner(owner, { nowMs: () => 0 });
    const authenticated = cached.authenticate({ token: 'rly_u_alice' });
    await cached.updateRelaySettings({ agentSessionsEnabled: false });
    letAnswer();
    expect((await authenticated).settings?.agentSessionsEnabled).toBe(true);
    expect((await cached.getRelaySettings({})).settings?.agentSessionsEnabled).toBe(false);
    expect(asked.settings).toBe(1);
  });

  it('passes every other call to the owner', async () => {
    const { owner } = countingSessions(new Map());
    expect(await cachedSessionOwner(owner).listUsers({})).toEqual({ users: [] });
  });
});

describe('cachedPairingOwner', () => {
  it('holds the pairing settings until they are changed here', async () => {
    let settings: PairingSettings = { acceptPrompts: false };
    let reads = 0;
    const owner = {
      async getPairingSettings() {
        reads += 1;
        return { settings };
      },
      async setPairingSettings(change: Partial<PairingSettings>) {
        settings = { ...settings, ...change };
        return { settings };
      },
    } as unknown as PairingClient;
    const cached = cachedPairingOwner(owner, { nowMs: () => 0 });
    await cached.getPairingSettings({});
    expect((await cached.getPairingSettings({})).settings?.acceptPrompts).toBe(false);
    expect(reads).toBe(1);
    await cached.setPairingSettings({ acceptPrompts: true });
    expect((await cached.getPairingSettings({})).settings?.acceptPrompts).toBe(true);
  });
});
