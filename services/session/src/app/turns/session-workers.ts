import type { Clock } from '@relay/clock';
import { outsideTrace, type Logger } from '@relay/telemetry';
import { mintToken } from '../users/mint-token.ts';
import type { SecretSource, TokenHasher } from '../ports.ts';
import type { TurnStore } from './turn-store.ts';

/** What the workers need: the store, the token ports, the relay clock (token times), a logger. */
export interface SessionWorkersDeps {
  store: Pick<TurnStore, 'startWorker' | 'stopWorker'>;
  secrets: SecretSource;
  hasher: TokenHasher;
  clock: Clock;
  logger: Logger;
  /** A worker idle this long (real time) stops; default 10 minutes. */
  idleMs?: number;
}

type Worker = { token: string; tokenHash: string; inUse: number; idle?: NodeJS.Timeout };

/** A worker this long without a turn here is stopped and its token revoked (real time). */
const DEFAULT_IDLE_MS = 10 * 60_000;

/**
 * The session workers of this replica. A worker starts with a session's first turn here: it mints
 * the session's token (an api_tokens row, kind session) and keeps the raw token only in memory; it
 * stops, revoking the token, once idle, and at shutdown. A replica that dies leaves its token rows
 * behind, but their raw tokens died with it.
 */
export class SessionWorkers {
  readonly #deps: SessionWorkersDeps;
  readonly #idleMs: number;
  readonly #workers = new Map<string, Promise<Worker>>();

  constructor(deps: SessionWorkersDeps) {
    this.#deps = deps;
    this.#idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** The session's worker token, starting its worker if none runs here; pair with release(). */
  async acquire(session: { id: string; userId: string }): Promise<string> {
    let starting = this.#workers.get(session.id);
    if (starting === undefined) {
      starting = this.#start(session);
      this.#workers.set(session.id, starting);
      starting.catch(() => this.#workers.delete(session.id));
    }
    const worker = await starting;
    worker.inUse += 1;
    clearTimeout(worker.idle);
    return worker.token;
  }

  /** The turn that acquired the worker is over; the worker stops once it stays idle. */
  release(sessionId: string): void {
    void this.#workers.get(sessionId)?.then((worker) => {
      worker.inUse = Math.max(0, worker.inUse - 1);
      if (worker.inUse > 0) return;
      clearTimeout(worker.idle);
      // Released inside a turn's span: the stop ten minutes later is not part of that turn.
      worker.idle = outsideTrace(() => setTimeout(() => void this.#stop(sessionId), this.#idleMs));
      worker.idle.unref();
    });
  }

  /** Stops every worker of this replica and revokes their tokens. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#workers.keys()].map((sessionId) => this.#stop(sessionId)));
  }

  async #start(session: { id: string; userId: string }): Promise<Worker> {
    const { token, record } = mintToken(this.#deps, { kind: 'session', userId: session.userId, sessionId: session.id }, this.#deps.clock.now());
    await this.#deps.store.startWorker(record);
    this.#deps.logger.debug({ sessionId: session.id }, 'session worker started');
    return { token, tokenHash: record.tokenHash, inUse: 0 };
  }

  async #stop(sessionId: string): Promise<void> {
    const starting = this.#workers.get(sessionId);
    if (starting === undefined) return;
    const worker = await starting.catch(() => undefined);
    if (worker === undefined || worker.inUse > 0) return;
    clearTimeout(worker.idle);
    this.#workers.delete(sessionId);
    try {
      await this.#deps.store.stopWorker(sessionId, worker.tokenHash);
      this.#deps.logger.debug({ sessionId }, 'session worker stopped');
    } catch (error) {
      this.#deps.logger.warn({ err: error, sessionId }, 'could not revoke a session worker token');
    }
  }
}
