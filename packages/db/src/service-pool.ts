import pg from 'pg';
import { tooLate, waitLeft, type CallDeadline } from './call-deadline.ts';

/**
 * Every service connection runs without PostgreSQL's JIT. The services' statements are short lookups by index, but the
 * planner's estimate grows with the data (and a prepared statement's generic plan is costed for any parameter): once
 * it passed `jit_above_cost`, `list_sessions` compiled its statement on every call, 30–50 ms (600 ms generic) for a
 * read whose rows took 2 ms (bench/history.md). No statement of the relay runs long enough to earn a compilation back.
 */
const CONNECTION_OPTIONS = '-c jit=off';

/**
 * A service's PostgreSQL pool, which its Prisma client and its reads in plain SQL share. `pg` closes a connection after
 * 10 s without a query, so an agent that calls less often than that paid, on each call, for a new backend (started
 * and authenticated) and for preparing the hot reads again on it. One connection now stays open while the service
 * idles; those a burst opened beyond it still close after 10 s, so a relay at rest holds one per service.
 */
export function servicePool(connectionString: string): pg.Pool {
  sendDatesAsUtc();
  return new pg.Pool({ connectionString, min: 1, options: CONNECTION_OPTIONS });
}

/**
 * The services' TIMESTAMP(3) columns hold UTC (Prisma writes them so, and preparedRead reads them so), but `pg` sends
 * a Date parameter in the process's time zone, whose offset PostgreSQL drops as it reads it into such a column: a
 * relay run outside UTC (`relay up` on a laptop in New York) compared its statements' instants hours off, e.g. listed
 * the subscriptions ended in the last six hours for the last hour. A service's pools send every Date as UTC. `pg`
 * keeps this setting for the whole process, where every pool is a service's.
 */
function sendDatesAsUtc(): void {
  pg.defaults.parseInputDatesAsUTC = true;
}

/** How a LanedPool shares its connections. */
export interface Lanes {
  /** Connections in all. */
  connections: number;
  /** At most this many run statements alone (`query`) at once: the others are kept for transactions. */
  statements: number;
}

/**
 * A service's 10 connections, as node-postgres' default pool had them (docs/operations.md, Sizing); the reads may hold
 * 8 of them, so 2 are always there for the transactions a gate lets through (docs/adr/0049).
 */
const SERVICE_LANES: Lanes = { connections: 10, statements: 8 };

/**
 * A pool whose transactions never wait in the reads' line (docs/adr/0049-transactions-go-before-reads-in-the-pool.md).
 * In node-postgres' pool one line served both, first come first served, so under a burst (1,000 token checks and
 * card reads) the transactions a gate had let through waited behind every read queued before them, up to the gate's
 * bound, and were refused. Here each has a line of its own over the same connections: a transaction (`connect`, which
 * Prisma's driver adapter calls to begin one) takes a free connection before any statement run alone (`query`: every
 * read in plain SQL, and each query of Prisma's outside a transaction) that waits, and statements hold at most
 * `lanes.statements` connections, so a transaction finds one even while reads hold theirs as long as they like. The
 * reads still have every connection the transactions leave (the transaction gate leaves them 2, the outbox's round
 * one of those).
 *
 * A statement of a call waits at most up to a margin before the call's deadline (`deadline`; call-deadline.ts): then
 * it leaves the line, never run, refused with REMOTE_RELAY_CALL_LIMIT, and the connection goes to a call still waited
 * on. One no call waits on (the outbox's round, background work) waits as long as it takes. A transaction is bounded
 * by the transaction gate before it asks for a connection here.
 *
 * To Prisma's adapter it is one pg.Pool: the connections are those of an inner pool, which never queues (at most
 * `lanes.connections` are asked of it), whose idle connections' errors are this pool's 'error', and which `end` ends.
 * `query` answers with a promise only (the form Prisma's adapter and the reads use).
 */
export class LanedPool extends pg.Pool {
  readonly #connections: pg.Pool;
  #free: number;
  /** Connections given to statements, counted when given (before the statement runs). */
  #statementsHolding = 0;
  readonly #statementsMax: number;
  readonly #transactionsWaiting: (() => void)[] = [];
  readonly #statementsWaiting: (() => void)[] = [];
  readonly #deadline: CallDeadline | undefined;

  constructor(connectionString: string, lanes: Lanes, deadline?: CallDeadline) {
    // This pool's own machinery opens no connection: `connect` and `query` are answered from #connections.
    super({ connectionString, max: lanes.connections });
    sendDatesAsUtc();
    // One connection stays open while the service idles (see servicePool).
    this.#connections = new pg.Pool({ connectionString, min: 1, max: lanes.connections, options: CONNECTION_OPTIONS });
    this.#connections.on('error', (error, client) => this.emit('error', error, client));
    this.#free = lanes.connections;
    this.#statementsMax = lanes.statements;
    this.#deadline = deadline;
    this.query = this.#statement.bind(this) as pg.Pool['query'];
  }

  /** A connection for a transaction, before any statement waiting; its `release` gives it to the next in line. */
  override async connect(): Promise<pg.PoolClient> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((take) => this.#transactionsWaiting.push(take));
    const client = await this.#connections.connect().catch((error: unknown) => {
      this.#pass();
      throw error;
    });
    const release = client.release.bind(client);
    let released = false;
    client.release = (error?: Error | boolean) => {
      if (!released) this.#pass();
      released = true;
      release(error);
    };
    return client;
  }

  override async end(): Promise<void> {
    await Promise.all([super.end(), this.#connections.end()]);
  }

  async #statement(...args: Parameters<pg.Pool['query']>): Promise<unknown> {
    const left = waitLeft(this.#deadline, Infinity);
    if (left <= 0) throw tooLate();
    if (this.#free > 0 && this.#statementsHolding < this.#statementsMax) {
      this.#free -= 1;
      this.#statementsHolding += 1;
    } else await this.#inLine(left);
    try {
      return await (this.#connections.query as (...inner: unknown[]) => Promise<unknown>)(...args);
    } finally {
      this.#statementsHolding -= 1;
      this.#pass();
    }
  }

  /** Waits in the statements' line for a connection; leaves it, refused, once `waitMs` passes. */
  #inLine(waitMs: number): Promise<void> {
    return new Promise((take, refuse) => {
      if (waitMs > LONGEST_TIMER_MS) {
        this.#statementsWaiting.push(take);
        return;
      }
      const waiter = (): void => {
        clearTimeout(timer);
        take();
      };
      const timer = setTimeout(() => {
        this.#statementsWaiting.splice(this.#statementsWaiting.indexOf(waiter), 1);
        refuse(tooLate());
      }, waitMs);
      this.#statementsWaiting.push(waiter);
    });
  }

  /** A connection came free: it goes to the first transaction waiting, else to the first statement that may run. */
  #pass(): void {
    const transaction = this.#transactionsWaiting.shift();
    if (transaction !== undefined) return transaction();
    const statement = this.#statementsHolding < this.#statementsMax ? this.#statementsWaiting.shift() : undefined;
    if (statement === undefined) {
      this.#free += 1;
      return;
    }
    this.#statementsHolding += 1;
    statement();
  }
}

/** setTimeout's longest delay; a wait bounded beyond it (a deadline weeks away) waits as one without a bound. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * The session and question services' pool: their transactions go before their reads, and a call's reads wait at most
 * up to a margin before its `deadline`.
 */
export function lanedServicePool(connectionString: string, deadline?: CallDeadline): LanedPool {
  return new LanedPool(connectionString, SERVICE_LANES, deadline);
}
