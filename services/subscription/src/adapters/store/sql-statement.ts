/**
 * Statements in plain SQL, run the same on Prisma's client or transaction and on a `pg` connection of the pool Prisma's
 * client uses (docs/adr/0025): the pipeline's batches skip Prisma's client, whose query handling cost a replica about
 * as much CPU as the `pg` driver under it.
 */
import type { Sql } from '@relay/bus';
import pg from 'pg';

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

/** TIMESTAMP(3) columns hold UTC (Prisma writes them so); pg alone would read them in the process's time zone. */
const TIMESTAMP_OID = 1114;
const UTC_TIMESTAMPS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** A pg connection as a `Sql`, reading rows as Prisma's client does (timestamps in UTC, json parsed). */
function pgSql(client: pg.PoolClient): Sql {
  return {
    async $queryRawUnsafe<T>(text: string, ...values: unknown[]) {
      return (await client.query({ text, values, types: UTC_TIMESTAMPS })).rows as T;
    },
    async $executeRawUnsafe(text: string, ...values: unknown[]) {
      return (await client.query({ text, values, types: UTC_TIMESTAMPS })).rowCount ?? 0;
    },
  };
}

/**
 * Runs `work` in one transaction on a connection of `pool`: all its statements commit or none. A connection whose
 * rollback failed is closed rather than returned to the pool.
 */
export async function pgTransaction<T>(pool: pg.Pool, work: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(pgSql(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
