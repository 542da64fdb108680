import pg from 'pg';

/**
 * A service's PostgreSQL pool, which its Prisma client and its reads in plain SQL share. `pg` closes a connection after
 * 10 s without a query, so an agent that calls less often than that paid, on each call, for a new backend (started
 * and authenticated) and for preparing the hot reads again on it. One connection now stays open while the service
 * idles; those a burst opened beyond it still close after 10 s, so a relay at rest holds one per service.
 */
export function servicePool(connectionString: string): pg.Pool {
  return new pg.Pool({ connectionString, min: 1 });
}
