/**
 * A bound on a service's interactive transactions (docs/adr/0048-writes-queue-at-a-transaction-gate.md). Prisma
 * gives a transaction 2 s to get a connection of the pool and then fails it ("Unable to start a transaction in the
 * given time"), so a burst of writes (1,000 agents raising cards at once: their held calls, their cards) failed most of
 * them as internal errors, and the reads queued behind them (token checks) missed their deadline. Through the gate at
 * most `concurrency` transactions, fewer than the pool's connections, hold one at a time: the others wait here, first
 * come first served, so the reads always find a connection, and a transaction that passes the gate goes before the
 * reads waiting in the pool's line (service-pool.ts, docs/adr/0049). A
 * transaction that cannot pass in time (its bound, or a margin before its call's deadline: call-deadline.ts), or finds
 * the queue full, is refused before it starts, with REMOTE_RELAY_CALL_LIMIT: nothing of it was written, and the same
 * call made again a moment later goes through.
 */
import { appError, type AppError } from '@relay/errors';
import { waitLeft, type CallDeadline } from './call-deadline.ts';

export interface TransactionGateOptions {
  /** Transactions at once; below the pool's connections, so reads keep some. */
  concurrency: number;
  /** Transactions waiting at most; one more is refused at once. */
  maxQueued: number;
  /** How long one waits at most before it is refused (below the callers' gRPC deadline, so no write lands after it). */
  maxQueueMs: number;
  /**
   * The deadline of the call a transaction serves: it waits at most up to DEADLINE_MARGIN_MS before it, and none
   * begins later. Without one (or for work no call waits on) only maxQueueMs bounds the wait.
   */
  deadline?: CallDeadline;
}

interface Waiter {
  pass: () => void;
  timer: NodeJS.Timeout;
}

/** A first-come-first-served semaphore with a bounded queue, for one process. */
export class TransactionGate {
  #running = 0;
  readonly #queue: Waiter[] = [];

  constructor(private readonly options: TransactionGateOptions) {}

  /**
   * Runs `work` once a place is free; refuses it (never started) when the queue is full, the wait too long or its
   * call's deadline too near.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const left = waitLeft(this.options.deadline, this.options.maxQueueMs);
    if (left <= 0) throw busy();
    if (this.#running >= this.options.concurrency || this.#queue.length > 0) await this.#enter(left);
    else this.#running += 1;
    try {
      return await work();
    } finally {
      this.#leave();
    }
  }

  #enter(waitMs: number): Promise<void> {
    if (this.#queue.length >= this.options.maxQueued) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pass: resolve,
        timer: setTimeout(() => {
          this.#queue.splice(this.#queue.indexOf(waiter), 1);
          reject(busy());
        }, waitMs),
      };
      this.#queue.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#running -= 1;
      return;
    }
    // The place passes straight to the next waiter: #running stays.
    clearTimeout(next.timer);
    next.pass();
  }
}

/** Connections of the pool kept from transactions, for the reads (token checks, reads of sessions). */
const READ_CONNECTIONS = 2;

/**
 * The gate's bounds for a pool: the pool's connections but READ_CONNECTIONS; up to 2,000 waiting (a few hundred
 * bytes each); 5 s at most in the queue, half the gateway's 10 s deadline for a call to this service.
 */
export function transactionBounds(pool: { options: { max?: number } }): TransactionGateOptions {
  const connections = pool.options.max ?? DEFAULT_POOL_SIZE;
  return { concurrency: Math.max(1, connections - READ_CONNECTIONS), maxQueued: 2_000, maxQueueMs: 5_000 };
}

/** pg.Pool's connections when it is given no max. */
const DEFAULT_POOL_SIZE = 10;

/** The refusal of a write the gate did not start: retryable, nothing done. */
export function busy(): AppError {
  return appError(
    'REMOTE_RELAY_CALL_LIMIT',
    'This relay has too many writes waiting for its database to take this one now. Nothing was changed; make the same call again in a few seconds.',
  );
}

/** Prisma's refusal of a transaction that did not get a connection in time: nothing of it ran. */
function notStarted(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'P2028' &&
    String((error as { message?: unknown }).message).includes('Unable to start a transaction')
  );
}

type Transactional = { $transaction: (...args: never[]) => Promise<unknown> };

/** The clients behind the gated ones. */
const ungatedClients = new WeakMap<object, object>();

/**
 * The client behind a gated one (itself when it is not gated): the outbox's rounds, one at a time, are never refused,
 * and their one connection is counted in READ_CONNECTIONS.
 */
export function ungated<C extends object>(client: C): C {
  return (ungatedClients.get(client) as C | undefined) ?? client;
}

/**
 * `client` with its `$transaction` (both forms) through `gate`; everything else is the client's own. A transaction
 * Prisma could not start in time is the same refusal as one the gate did not start.
 */
export function gatedTransactions<C extends Transactional>(client: C, gate: TransactionGate): C {
  const transaction = (...args: unknown[]) =>
    gate.run(async () => {
      try {
        return await (client.$transaction as (...inner: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        throw notStarted(error) ? busy() : error;
      }
    });
  const gated = new Proxy(client, {
    get(target, property) {
      if (property === '$transaction') return transaction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...inner: unknown[]) => unknown).bind(target) : value;
    },
  });
  ungatedClients.set(gated, client);
  return gated;
}
