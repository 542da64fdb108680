import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../src/index.ts';
import { runMigrateCli } from '../src/run-migrate-cli.ts';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { scratchDatabase, type ScratchDatabase } from './scratch-database.ts';

const fixtureMigrations = fileURLToPath(new URL('./fixtures/prisma/migrations', import.meta.url));
const bin = fileURLToPath(new URL('../bin/relay-migrate.mjs', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emptyDatabase(): Promise<ScratchDatabase> {
  const database = await scratchDatabase();
  cleanups.push(() => database.drop());
  return database;
}

async function copyOfFixtures(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(fixtureMigrations, dir, { recursive: true });
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrate', () => {
  it('creates the database, applies migrations in order with Prisma bookkeeping, and is a no-op when re-run', async () => {
    const database = await emptyDatabase();
    await database.drop(); // migrate must create it itself

    const applied = await migrate({ databaseUrl: database.url, migrationsDir: fixtureMigrations });
    expect(applied).toEqual(['20260101000000_init', '20260102000000_add_status']);

    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      database.url,
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    const expectedChecksum = createHash('sha256')
      .update(readFileSync(join(fixtureMigrations, '20260101000000_init', 'migration.sql')))
      .digest('hex');
    expect(rows.map((row) => row.migration_name)).toEqual(applied);
    expect(rows[0]?.checksum).toBe(expectedChecksum);
    expect(rows.every((row) => row.finished_at !== null && row.applied_steps_count === 1)).toBe(true);

    const columns = await query<{ column_name: string }>(
      database.url,
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'sessions' ORDER BY column_name",
    );
    expect(columns.map((column) => column.column_name)).toContain('status');

    expect(await migrate({ databaseUrl: database.url, migrationsDir: fixtureMigrations })).toEqual([]);
  });

  it('serialises concurrent runners: each migration is applied once', async () => {
    const database = await emptyDatabase();
    const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: database.url, migrationsDir: fixtureMigrations })));
    expect(results.flat().sort()).toEqual(['20260101000000_init', '20260102000000_add_status']);
  });

  it('applies only the new migration when one is added later', async () => {
    const database = await emptyDatabase();
    const dir = await copyOfFixtures();
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await cp(join(dir, '20260102000000_add_status'), join(dir, '20260103000000_more'), { recursive: true });
    await writeFile(join(dir, '20260103000000_more', 'migration.sql'), 'ALTER TABLE "sessions" ADD COLUMN "note" TEXT;\n');
    expect(await migrate({ databaseUrl: database.url, migrationsDir: dir })).toEqual(['20260103000000_more']);
  });

  it('refuses when an applied migration file was changed', async () => {
    const database = await emptyDatabase();
    const dir = await copyOfFixtures();
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await writeFile(join(dir, '20260101000000_init', 'migration.sql'), '-- edited\n', { flag: 'a' });
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toMatchObject({
      code: 'MIGRATION_CHANGED',
      details: { migration: '20260101000000_init' },
    });
  });

  it('rolls a failing migration back entirely and records nothing for it', async () => {
    const database = await emptyDatabase();
    const dir = await copyOfFixtures();
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await cp(join(dir, '20260102000000_add_status'), join(dir, '20260103000000_broken'), { recursive: true });
    await writeFile(join(dir, '20260103000000_broken', 'migration.sql'), 'CREATE TABLE "half" ("id" TEXT);\nALTER TABLE "missing" ADD COLUMN "x" TEXT;\n');
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toMatchObject({
      code: 'MIGRATION_FAILED',
      details: { migration: '20260103000000_broken' },
    });
    expect(await query(database.url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'half'")).toEqual([]);
    expect(await query(database.url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20260103000000_broken'`)).toEqual([]);
  });

  it('refuses when a migration is recorded as failed (e.g. by prisma migrate deploy)', async () => {
    const database = await emptyDatabase();
    await migrate({ databaseUrl: database.url, migrationsDir: fixtureMigrations });
    await query(database.url, `UPDATE "_prisma_migrations" SET finished_at = NULL WHERE migration_name = '20260102000000_add_status'`);
    await expect(migrate({ databaseUrl: database.url, migrationsDir: fixtureMigrations })).rejects.toMatchObject({
      code: 'MIGRATION_FAILED',
      details: { migration: '20260102000000_add_status' },
    });
  });
});

describe('relay-migrate', () => {
  it('migrates DATABASE_URL from the given folder and prints what it applied', async () => {
    const database = await emptyDatabase();
    const result = spawnSync(process.execPath, [bin, fixtureMigrations], {
      env: { ...process.env, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('applied 20260101000000_init\napplied 20260102000000_add_status\n');
  });

  it('exits non-zero with one error line', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink = (lines: string[]) => ({ write: (text: string) => lines.push(text) });
    expect(await runMigrateCli([], {}, sink(out), sink(err))).toBe(2);
    expect(await runMigrateCli(['dir'], {}, sink(out), sink(err))).toBe(2);

    const database = await emptyDatabase();
    const dir = await copyOfFixtures();
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await writeFile(join(dir, '20260101000000_init', 'migration.sql'), '-- edited\n', { flag: 'a' });
    const result = spawnSync(process.execPath, [bin, dir], { env: { ...process.env, DATABASE_URL: database.url }, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('20260101000000_init');
  });
});
