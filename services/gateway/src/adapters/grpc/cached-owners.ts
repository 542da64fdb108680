/**
 * The reads every request makes, held in the gateway for a few seconds so that a call costs no round trip for them:
 * the caller behind a bearer token, the relay's settings (which the session service answers along with a caller) and
 * the pairing settings. Each is forgotten at once when a change of it goes through this gateway (a token rotated or
 * revoked, a user removed, a session archived, a setting changed), and after CACHE_MS in any case: that is how long a
 * change made another way — through another gateway replica, a hosted agent's worker token dropped by the session
 * service when the worker stops, a console token reaching its expiry — may take to be seen (docs/security.md, Users
 * and tokens). An unknown token is never held: it is asked again every time, and the failed-token limits count it.
 */
import { createHash } from 'node:crypto';
import type { GetPairingSettingsResponse } from '@relay/proto/relay/pairing/v1/pairing_service';
import type { AuthenticateResponse, GetRelaySettingsResponse } from '@relay/proto/relay/session/v1/session_service';
import type { PairingClient, SessionClient } from '../../app/ports.ts';

/** How long a read is held at most. */
export const CACHE_MS = 5_000;

/** Enough callers for any relay; past it the cache starts again empty rather than grow. */
const MAX_ENTRIES = 10_000;

/** Promises of values by key, each until its time is up; a rejected one is dropped at once. */
export class ExpiringReads<T> {
  readonly #entries = new Map<string, { value: Promise<T>; expiresAtMs: number }>();
  /** How many times everything was forgotten: a value read across one of them is not held. */
  #clears = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly nowMs: () => number,
  ) {}

  /** The held value of `key`, or `read()`'s, held from now on; concurrent misses share one read. */
  get(key: string, read: () => Promise<T>): Promise<T> {
    const now = this.nowMs();
    const held = this.#entries.get(key);
    if (held !== undefined && held.expiresAtMs > now) return held.value;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    const value = read();
    const entry = { value, expiresAtMs: now + this.ttlMs };
    this.#entries.set(key, entry);
    // Only this entry: a clear() meanwhile may have let a newer read take the key.
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /**
   * Holds a value of `key` that another read, beginning now, brings along: the function returned holds it for the
   * time counted from now, unless everything was forgotten meanwhile (a change may have gone through after the read).
   */
  holdFromNow(key: string): (value: T) => void {
    const clears = this.#clears;
    const expiresAtMs = this.nowMs() + this.ttlMs;
    return (value) => {
      if (this.#clears !== clears) return;
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { value: Promise.resolve(value), expiresAtMs });
    };
  }

  /** Forgets everything; reads in flight are not held when they end. */
  clear(): void {
    this.#entries.clear();
    this.#clears += 1;
  }
}

export interface CacheOptions {
  ttlMs?: number;
  nowMs?: () => number;
}

/**
 * `owner` with `authenticate` and `getRelaySettings` held (see the file's comment); the changes that end a token's
 * or a setting's validity forget them when they were asked for, and again when they are done.
 */
export function cachedSessionOwner(owner: SessionClient, options: CacheOptions = {}): SessionClient {
  const ttlMs = options.ttlMs ?? CACHE_MS;
  const nowMs = options.nowMs ?? Date.now;
  const callers = new ExpiringReads<AuthenticateResponse>(ttlMs, nowMs);
  const settings = new ExpiringReads<GetRelaySettingsResponse>(ttlMs, nowMs);
  return withOverrides(owner, {
    // Keyed by the token's hash: the gateway keeps no bearer token in memory beyond its request. The relay's settings
    // come along, and are held as if read on their own: a call after a quiet spell asks once, not twice.
    authenticate: (request, callOptions) =>
      callers.get(hashOf(request.token), async () => {
        const holdSettings = settings.holdFromNow('');
        // A token check waits for the session service within its deadline rather than refusing the request (503)
        // while the channel is between reconnects: another call (a background claim) may have found the service down
        // a moment before it came back, and its connection's backoff is no reason to turn a person away.
        const answer = await owner.authenticate(request, { ...callOptions, waitForReady: true });
        if (answer.settings !== undefined) holdSettings({ settings: answer.settings });
        return answer;
      }),
    rotateUserToken: (...args) => forgetting(callers, () => owner.rotateUserToken(...args)),
    endSignIn: (...args) => forgetting(callers, () => owner.endSignIn(...args)),
    rotateSessionToken: (...args) => forgetting(callers, () => owner.rotateSessionToken(...args)),
    removeUser: (...args) => forgetting(callers, () => owner.removeUser(...args)),
    archiveSession: (...args) => forgetting(callers, () => owner.archiveSession(...args)),
    getRelaySettings: (...args) => settings.get('', () => owner.getRelaySettings(...args)),
    updateRelaySettings: (...args) => forgetting(settings, () => owner.updateRelaySettings(...args)),
  });
}

/** `owner` with `getPairingSettings` held (relay_info reads it on every call); setPairingSettings forgets it. */
export function cachedPairingOwner(owner: PairingClient, options: CacheOptions = {}): PairingClient {
  const settings = new ExpiringReads<GetPairingSettingsResponse>(options.ttlMs ?? CACHE_MS, options.nowMs ?? Date.now);
  return withOverrides(owner, {
    getPairingSettings: (...args) => settings.get('', () => owner.getPairingSettings(...args)),
    setPairingSettings: (...args) => forgetting(settings, () => owner.setPairingSettings(...args)),
  });
}

/**
 * Runs a change that ends what `reads` hold, forgetting them before and after: a read that ran during the change
 * could otherwise hold what it read before the change.
 */
function forgetting<R>(reads: { clear(): void }, change: () => Promise<R>): Promise<R> {
  reads.clear();
  return change().finally(() => reads.clear());
}

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** `target` answering with `overrides` where given and its own methods otherwise. */
function withOverrides<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(object, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
