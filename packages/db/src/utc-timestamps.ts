import pg from 'pg';

const TIMESTAMP_OID = 1114;

/**
 * `types` for a `pg` query that reads TIMESTAMP(3) columns: they hold UTC (Prisma writes them so), and `pg` alone would
 * read them in the process's time zone. For the reads in plain SQL on the pool a service's Prisma client uses
 * (docs/adr/0024).
 */
export const UTC_TIMESTAMPS: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID ? (value: string) => new Date(`${value.replace(' ', 'T')}Z`) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};
