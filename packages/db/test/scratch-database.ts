import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabaseIfMissing, quoteIdentifier } from '../src/index.ts';

// @relay/testing depends on this package, so these tests make their own databases instead of importing it.
export type ScratchDatabase = { url: string; drop(): Promise<void> };

/** A new empty database on the test server (TEST_DATABASE_URL, DATABASE_URL, or local trust auth). */
export async function scratchDatabase(): Promise<ScratchDatabase> {
  const server = new URL(process.env['TEST_DATABASE_URL'] || process.env['DATABASE_URL'] || 'postgresql://postgres@127.0.0.1:5432/postgres');
  const name = `relay_db_test_${randomBytes(6).toString('hex')}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  await createDatabaseIfMissing(url.toString());
  server.pathname = '/postgres';
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: server.toString() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
