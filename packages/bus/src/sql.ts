/**
 * The slice of a PrismaClient (or of the `tx` of an interactive transaction) the bus needs, so the
 * outbox row and the state change it announces share one transaction.
 */
export type Sql = {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
};

/**
 * A Sql that runs `work` in one transaction of its own (a PrismaClient; not the `tx` of a transaction), for the bus's
 * own transactions such as an outbox round. `maxWait`: the longest to wait for a connection, `timeout`: the longest
 * the transaction may stay open, both in ms.
 */
export type TransactionalSql = Sql & {
  $transaction<T>(work: (tx: Sql) => Promise<T>, options?: { maxWait?: number; timeout?: number }): Promise<T>;
};
