import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDatabaseIfMissing, migrate, quoteIdentifier } from '@relay/db';

export type TestDatabase = { url: string; name: string; drop(): Promise<void> };

const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
/** The migration runner: a change to it makes new templates, as a change to the migrations does. */
const MIGRATE_SOURCE = fileURLToPath(new URL('../../db/src/migrate.ts', import.meta.url));

/** The test Postgres server: TEST_DATABASE_URL, else DATABASE_URL, else the local trust-auth server. */
export function testServerUrl(env: Record<string, string | undefined> = process.env): string {
  return env['TEST_DATABASE_URL'] || env['DATABASE_URL'] || DEFAULT_SERVER_URL;
}

/**
 * A fresh, uniquely named database on the test server, migrated from `migrationsDir` when given.
 * `drop()` removes it even if connections are still open.
 *
 * A migrated one is a copy of a template database that `migrate` built from the same migrations (see
 * migratedTemplate): copying a template costs PostgreSQL a fraction of running the migrations again, and a test run
 * makes some two hundred such databases (five for every relay it starts).
 */
export async function createTestDatabase(options: { migrationsDir?: string; serverUrl?: string } = {}): Promise<TestDatabase> {
  const serverUrl = options.serverUrl ?? testServerUrl();
  const name = uniqueName('relay_test');
  const url = withDatabase(serverUrl, name);
  if (options.migrationsDir === undefined) await createDatabaseIfMissing(url);
  else await copyDatabase(serverUrl, await migratedTemplate(serverUrl, options.migrationsDir), name);
  return { url, name, drop: () => dropDatabase(serverUrl, name) };
}

/** The templates this process has made or found, by server and name. */
const templates = new Map<string, Promise<string>>();

/**
 * The name of a database holding exactly what `migrate` makes of `migrationsDir`, named by a fingerprint of the
 * migrations and the runner, so an edited or added migration gets a template of its own. Made once per server by
 * whichever test process first needs it: migrated under a name of its own, closed to connections, then renamed, so
 * a template under its final name is always complete. Test processes of other checkouts share it.
 */
async function migratedTemplate(serverUrl: string, migrationsDir: string): Promise<string> {
  const name = `relay_template_${await fingerprint(migrationsDir)}`;
  const key = `${serverUrl} ${name}`;
  let made = templates.get(key);
  if (made === undefined) {
    made = makeTemplate(serverUrl, migrationsDir, name);
    templates.set(key, made);
    made.catch(() => templates.delete(key));
  }
  return made;
}

async function makeTemplate(serverUrl: string, migrationsDir: string, name: string): Promise<string> {
  if (await databaseExists(serverUrl, name)) return name;
  const building = uniqueName(`${name}_building`);
  try {
    await migrate({ databaseUrl: withDatabase(serverUrl, building), migrationsDir });
    await onServer(serverUrl, async (admin) => {
      await whileInUse(() => admin.query(`ALTER DATABASE ${quoteIdentifier(building)} WITH ALLOW_CONNECTIONS false`));
      try {
        await whileInUse(() => admin.query(`ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(name)}`));
      } catch (error) {
        // Another test process made the same template first (42P04): its copy serves as well.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    });
  } finally {
    await dropDatabase(serverUrl, building);
  }
  return name;
}

/** A hash of every migration's name and SQL, and of the runner's own source. */
async function fingerprint(migrationsDir: string): Promise<string> {
  const hash = createHash('sha256').update(await readFile(MIGRATE_SOURCE));
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const sql = await readFile(join(migrationsDir, entry.name, 'migration.sql')).catch(() => undefined);
    if (sql !== undefined) hash.update(`${entry.name}\0`).update(sql).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** CREATE DATABASE … TEMPLATE: a copy of the template's files. */
async function copyDatabase(serverUrl: string, template: string, name: string): Promise<void> {
  await onServer(serverUrl, (admin) => whileInUse(() => admin.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`)));
}

/**
 * Runs `work` again while PostgreSQL refuses it because another session is connected to the database (55006): the
 * backend of a client that just disconnected may not have exited yet, and an autovacuum worker is asked to leave.
 */
async function whileInUse<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt === 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  return onServer(serverUrl, async (admin) => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

/** How long a drop waits for the backends of clients that are closing before it ends them. */
const DROP_GRACE_MS = 500;

/**
 * Drops the database with FORCE, once the backends of its clients that are closing have gone (up to DROP_GRACE_MS).
 * A pool's end() resolves before its connections have closed: ending their backends at once sends each closing
 * client an error (57P01), which a pool without an 'error' listener throws in the test process as an uncaught
 * exception. A connection a test left open is ended after the wait.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, async (admin) => {
    const started = Date.now();
    while (Date.now() - started < DROP_GRACE_MS && (await clientBackends(admin, name)) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  });
}

async function clientBackends(admin: pg.Client, name: string): Promise<number> {
  const { rows } = await admin.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
    [name],
  );
  return rows[0]!.count;
}

/** Runs `work` with a client of the server's `postgres` database, closed however it ends. */
async function onServer<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}
