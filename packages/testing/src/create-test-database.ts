import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabaseIfMissing, migrate, quoteIdentifier } from '@relay/db';

export type TestDatabase = { url: string; name: string; drop(): Promise<void> };

const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The test Postgres server: TEST_DATABASE_URL, else DATABASE_URL, else the local trust-auth server. */
export function testServerUrl(env: Record<string, string | undefined> = process.env): string {
  return env['TEST_DATABASE_URL'] || env['DATABASE_URL'] || DEFAULT_SERVER_URL;
}

/**
 * A fresh, uniquely named database on the test server, migrated from `migrationsDir` when given.
 * `drop()` removes it even if connections are still open.
 */
export async function createTestDatabase(options: { migrationsDir?: string; serverUrl?: string } = {}): Promise<TestDatabase> {
  const serverUrl = options.serverUrl ?? testServerUrl();
  const name = `relay_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(serverUrl, name);
  await createDatabaseIfMissing(url);
  const database: TestDatabase = { url, name, drop: () => dropDatabase(serverUrl, name) };
  if (options.migrationsDir !== undefined) {
    try {
      await migrate({ databaseUrl: url, migrationsDir: options.migrationsDir });
    } catch (error) {
      await database.drop();
      throw error;
    }
  }
  return database;
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}
