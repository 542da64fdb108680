/**
 * Failed tries per client address: token checks that found no token, and pairing codes that were wrong. A client
 * that used up its tries in the current minute is refused before anything is checked, so guessing is slow and a
 * flood of bad tokens costs the session and pairing services nothing; a client that succeeds spends no tries.
 * Counted by @fastify/rate-limit (in this process's memory, per replica).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    failureLimits: FailureLimits;
  }
}

/** How many failed tries a client address has per minute. */
export interface FailureLimitSettings {
  authFailuresPerMinute: number;
  pairingTriesPerMinute: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimitSettings = { authFailuresPerMinute: 60, pairingTriesPerMinute: 10 };

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** The tries of one kind, per client address (request.ip, which honours the trusted proxies). */
export class FailureLimit {
  #limiter?: Limiter;

  constructor(private readonly perMinute: number) {}

  /** The seconds the request's client must wait before it may try again, or undefined when it may try now. */
  async waitSeconds(request: FastifyRequest): Promise<number | undefined> {
    const state = await this.#limiterOf(request)(request, { increment: false });
    if (state.isAllowed || state.remaining > 0) return undefined;
    return Math.max(1, state.ttlInSeconds);
  }

  /** Counts one failed try of the request's client. */
  async failed(request: FastifyRequest): Promise<void> {
    await this.#limiterOf(request)(request);
  }

  // The plugin's decorator exists once the app has loaded its plugins, which is before any request.
  #limiterOf(request: FastifyRequest): Limiter {
    this.#limiter ??= request.server.createRateLimit({ max: this.perMinute, timeWindow: 60_000 });
    return this.#limiter;
  }
}

export interface FailureLimits {
  /** Bearer tokens (users', sessions', paired relays') that no service knows. */
  authentication: FailureLimit;
  /** Pairing codes a relay offered that were unknown, used or expired. */
  pairingCodes: FailureLimit;
}

/** Registers the counting on `app` as `app.failureLimits`. */
export function registerFailureLimits(app: FastifyInstance, settings: FailureLimitSettings): void {
  void app.register(rateLimit, { global: false });
  app.decorate('failureLimits', {
    authentication: new FailureLimit(settings.authFailuresPerMinute),
    pairingCodes: new FailureLimit(settings.pairingTriesPerMinute),
  });
}
