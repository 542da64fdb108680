import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { appError } from '@relay/errors';

/** The one logging call the runner makes; a pino Logger fits. */
export type MigrateLogger = { info(object: object, message: string): void };

export type MigrateOptions = {
  databaseUrl: string;
  /** A folder in Prisma's layout: `<dir>/<timestamp>_<name>/migration.sql`. */
  migrationsDir: string;
  logger?: MigrateLogger;
};

/** Prisma Migrate's own lock key, so this runner and `prisma migrate deploy` exclude each other too. */
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

/** Prisma's DDL for its bookkeeping table, column for column. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

type MigrationRow = { migration_name: string; checksum: string; finished_at: Date | null };

/**
 * Creates the database if missing, then applies each pending migration in name order, each in its own
 * transaction, recording it in `_prisma_migrations`. Returns the names applied; a re-run returns [].
 */
export async function migrate(options: MigrateOptions): Promise<string[]> {
  const migrations = await readMigrations(options.migrationsDir);
  await createDatabaseIfMissing(options.databaseUrl);
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const recorded = await client.query<MigrationRow>('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL');
    const applied = checkRecorded(recorded.rows, migrations);
    const pending = migrations.filter((migration) => !applied.has(migration.name));
    for (const migration of pending) {
      await applyMigration(client, migration);
      options.logger?.info({ migration: migration.name }, 'migration applied');
    }
    return pending.map((migration) => migration.name);
  } finally {
    await client.end();
  }
}

type Migration = { name: string; sql: string; checksum: string };

async function readMigrations(migrationsDir: string): Promise<Migration[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory() && existsSync(join(migrationsDir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(join(migrationsDir, name, 'migration.sql'));
      return { name, sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
    }),
  );
}

/** Refuses a failed or edited migration, as `prisma migrate deploy` does (P3009, P3018-like); returns the applied names. */
function checkRecorded(rows: MigrationRow[], migrations: Migration[]): Set<string> {
  const byName = new Map(migrations.map((migration) => [migration.name, migration]));
  const applied = new Set<string>();
  for (const row of rows) {
    if (row.finished_at === null) {
      throw appError('MIGRATION_FAILED', `migration ${row.migration_name} is recorded as started but never finished; resolve it before migrating again`, {
        details: { migration: row.migration_name },
      });
    }
    const local = byName.get(row.migration_name);
    if (local !== undefined && local.checksum !== row.checksum) {
      throw appError('MIGRATION_CHANGED', `migration ${row.migration_name} was changed after it was applied (checksum mismatch)`, {
        details: { migration: row.migration_name },
      });
    }
    applied.add(row.migration_name);
  }
  return applied;
}

async function applyMigration(client: pg.Client, migration: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    const id = randomUUID();
    await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [
      id,
      migration.checksum,
      migration.name,
    ]);
    // No parameters: pg uses the simple protocol, which runs a file of many statements.
    await client.query(migration.sql);
    await client.query('UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw appError('MIGRATION_FAILED', `migration ${migration.name} failed: ${describe(error)}`, {
      cause: error,
      details: { migration: migration.name },
    });
  }
}

/** Connects to the server's `postgres` database and creates the target one when it does not exist. */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (name === '' || name === 'postgres') return;
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount !== 0) return;
    try {
      await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
    } catch (error) {
      // Another runner created it between the check and the CREATE (42P04, or 23505 when both raced in the catalog).
      const code = (error as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw error;
    }
  } finally {
    await admin.end();
  }
}

/** Quotes a Postgres identifier (database names come from URLs, so they may hold anything). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
