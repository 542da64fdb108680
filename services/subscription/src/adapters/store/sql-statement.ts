/**
 * Statements in plain SQL, run the same on Prisma's client or transaction and on a `pg` connection of the pool Prisma's
 * client uses (docs/adr/0025): the pipeline's batches skip Prisma's client, whose query handling cost a replica about
 * as much CPU as the `pg` driver under it.
 */
import type { Sql, TransactionalSql } from '@relay/bus';
import { UTC_TIMESTAMPS } from '@relay/db/prepared-read';
import type pg from 'pg';

/** A statement with its values: `sql` tagged template; a value that is itself a statement is inlined with its own. */
export class Statement {
  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export const sql = (parts: TemplateStringsArray, ...values: unknown[]): Statement => new Statement(parts, values);

/** SQL text taken as it is (column lists, fixed fragments). */
export const raw = (text: string): Statement => new Statement([text], []);

export const join = (statements: readonly Statement[], separator: string): Statement =>
  new Statement(['', ...statements.slice(1).map(() => separator), ''], statements);

/** The statement's text with $1…$n for its values, in order. */
function render(statement: Statement, values: unknown[]): string {
  let text = statement.parts[0]!;
  statement.values.forEach((value, index) => {
    if (value instanceof Statement) text += render(value, values);
    else text += `$${values.push(value)}`;
    text += statement.parts[index + 1]!;
  });
  return text;
}

/** Statements on a `Sql` (Prisma's client or transaction, or a pg connection through `pgSql`). */
export class SqlRunner {
  constructor(readonly sql: Sql) {}

  /** The rows the statement returns. */
  rows<R>(statement: Statement): Promise<R[]> {
    const values: unknown[] = [];
    return this.sql.$queryRawUnsafe<R[]>(render(statement, values), ...values);
  }

  /** How many rows the statement wrote. */
  execute(statement: Statement): Promise<number> {
    const values: unknown[] = [];
    return this.sql.$executeRawUnsafe(render(statement, values), ...values);
  }
}

/** A pg connection (or the pool) as a `Sql`, reading rows as Prisma's client does (timestamps in UTC, json parsed). */
function pgSql(db: pg.PoolClient | pg.Pool, open: () => void = () => undefined): Sql {
  return {
    async $queryRawUnsafe<T>(text: string, ...values: unknown[]) {
      open();
      return (await db.query({ text, values, types: UTC_TIMESTAMPS })).rows as T;
    },
    async $executeRawUnsafe(text: string, ...values: unknown[]) {
      open();
      return (await db.query({ text, values, types: UTC_TIMESTAMPS })).rowCount ?? 0;
    },
  };
}

/** What a transaction may wait for a connection (`maxWait`) and stay open (`timeout`), in ms, as Prisma's `$transaction` takes them. */
type TransactionLimits = { maxWait?: number; timeout?: number };

/** A connection of the pool, or an error after `maxWaitMs` (a connection that comes later goes back to the pool). */
async function connection(pool: pg.Pool, maxWaitMs: number | undefined): Promise<pg.PoolClient> {
  const connecting = pool.connect();
  if (maxWaitMs === undefined) return connecting;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      connecting.then(
        (client) => client.release(),
        () => undefined,
      );
      reject(new Error(`no database connection within ${maxWaitMs} ms`));
    }, maxWaitMs);
  });
  try {
    return await Promise.race([connecting, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` in one transaction on a connection of `pool`: all its statements commit or none. Past `timeout` the
 * transaction is rolled back at once (its locks released) and its later statements fail, as with Prisma's
 * `$transaction`. A connection whose rollback failed is closed rather than returned to the pool.
 */
export async function pgTransaction<T>(pool: pg.Pool, work: (sql: Sql) => Promise<T>, limits: TransactionLimits = {}): Promise<T> {
  const client = await connection(pool, limits.maxWait);
  let broken: Error | undefined;
  let rolledBack: Promise<void> | undefined;
  const rollback = () =>
    (rolledBack ??= client.query('ROLLBACK').then(
      () => undefined,
      (error: unknown) => {
        broken = error instanceof Error ? error : new Error(String(error));
      },
    ));
  const timer = limits.timeout === undefined ? undefined : setTimeout(() => void rollback(), limits.timeout);
  const open = () => {
    if (rolledBack !== undefined) throw new Error(`transaction rolled back: open longer than ${limits.timeout} ms`);
  };
  try {
    await client.query('BEGIN');
    const result = await work(pgSql(client, open));
    open();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await rollback();
    throw error;
  } finally {
    clearTimeout(timer);
    client.release(broken);
  }
}

/** The pool as a `TransactionalSql` (an outbox relay's): its statements and transactions in plain SQL, not through Prisma's client. */
export function pgTransactionalSql(pool: pg.Pool): TransactionalSql {
  return { ...pgSql(pool), $transaction: (work, limits) => pgTransaction(pool, work, limits) };
}
