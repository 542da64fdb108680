/**
 * Failed tries: token checks that found no token, and pairing codes that were wrong. Tokens are counted twice, per
 * client address and per presented credential, and only ever against a presentation that failed: a token is checked
 * before any count is read, so a valid one is let in whatever others sent from its address. A credential that
 * failed too often in the current minute is refused without being checked again (it cannot turn valid: every token
 * and sign-in link is minted whole), and a client whose failures are used up gets 429 for each token that fails,
 * so it learns to stop. Pairing codes are counted per client address and, as before, refused unchecked once used up.
 * Counted by @fastify/rate-limit (in this process's memory, per replica).
 */
import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    failureLimits: FailureLimits;
  }
}

/** How many failed tries a client address, and a presented credential, has per minute. */
export interface FailureLimitSettings {
  /** Failed token checks per client address per minute, and per presented credential per minute. */
  authFailuresPerMinute: number;
  pairingTriesPerMinute: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimitSettings = { authFailuresPerMinute: 60, pairingTriesPerMinute: 10 };

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * The tries of one kind, per client address (request.ip, which honours the trusted proxies; an IPv6 client by its
 * subnet), or per key when one is given. A given key is only held (in a WeakMap by request) while it is counted.
 */
export class FailureLimit {
  #limiter?: Limiter;
  readonly #keys = new WeakMap<FastifyRequest, string>();

  constructor(
    private readonly perMinute: number,
    private readonly per: 'client' | 'key' = 'client',
  ) {}

  /** The seconds the key (or the request's client) must wait before it may try again, or undefined when it may try now. */
  async waitSeconds(request: FastifyRequest, key?: string): Promise<number | undefined> {
    const state = await this.#count(request, key, false);
    if (state.isAllowed || state.remaining > 0) return undefined;
    return Math.max(1, state.ttlInSeconds);
  }

  /** Counts one failed try of the key (or the request's client): the seconds to wait when that try was over the limit. */
  async failed(request: FastifyRequest, key?: string): Promise<number | undefined> {
    const state = await this.#count(request, key, true);
    if (state.isAllowed || !state.isExceeded) return undefined;
    return Math.max(1, state.ttlInSeconds);
  }

  async #count(request: FastifyRequest, key: string | undefined, increment: boolean) {
    if ((key === undefined) !== (this.per === 'client')) throw new Error(`this limit counts per ${this.per}`);
    if (key !== undefined) this.#keys.set(request, key);
    try {
      return await this.#limiterOf(request)(request, { increment });
    } finally {
      this.#keys.delete(request);
    }
  }

  // The plugin's decorator exists once the app has loaded its plugins, which is before any request.
  #limiterOf(request: FastifyRequest): Limiter {
    const keys = this.#keys;
    this.#limiter ??= request.server.createRateLimit({
      max: this.perMinute,
      timeWindow: 60_000,
      ...(this.per === 'key' ? { keyGenerator: (counted: FastifyRequest) => keys.get(counted) ?? 'no key' } : {}),
    });
    return this.#limiter;
  }
}

/** The key a presented credential is counted under: a hash, so no token is kept in memory. */
export function credentialKeyOf(credential: string): string {
  return `credential:${createHash('sha256').update(credential).digest('base64url')}`;
}

export interface FailureLimits {
  /** Bearer tokens (users', sessions', paired relays') and sign-in links that no service knows, per client address. */
  authentication: FailureLimit;
  /** The same failures, per presented credential. */
  credentials: FailureLimit;
  /** Pairing codes a relay offered that were unknown, used or expired. */
  pairingCodes: FailureLimit;
}

/** Registers the counting on `app` as `app.failureLimits`. */
export function registerFailureLimits(app: FastifyInstance, settings: FailureLimitSettings): void {
  void app.register(rateLimit, { global: false });
  app.decorate('failureLimits', {
    authentication: new FailureLimit(settings.authFailuresPerMinute),
    credentials: new FailureLimit(settings.authFailuresPerMinute, 'key'),
    pairingCodes: new FailureLimit(settings.pairingTriesPerMinute),
  });
}
