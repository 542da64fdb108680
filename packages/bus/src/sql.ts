/**
 * The slice of a PrismaClient (or of the `tx` of an interactive transaction) the bus needs, so the
 * outbox row and the state change it announces share one transaction.
 */
export type Sql = {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
};
