import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDrift, migrate } from '../src/index.ts';
import { scratchDatabase, type ScratchDatabase } from './scratch-database.ts';

const schemaPath = fileURLToPath(new URL('./fixtures/prisma/schema.prisma', import.meta.url));
const migrationsDir = fileURLToPath(new URL('./fixtures/prisma/migrations', import.meta.url));

let database: ScratchDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

async function execute(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('checkDrift', () => {
  it('finds no drift after migrating, then reports each change made behind the migrations', async () => {
    database = await scratchDatabase();
    await migrate({ databaseUrl: database.url, migrationsDir });
    expect(await checkDrift({ schemaPath, databaseUrl: database.url })).toEqual([]);

    await execute(
      database.url,
      `ALTER TABLE "sessions" ALTER COLUMN "title" DROP NOT NULL;
       ALTER TABLE "sessions" ALTER COLUMN "created_at" TYPE TIMESTAMP(6);
       ALTER TABLE "messages" ADD COLUMN "extra" INTEGER;
       DROP INDEX "sessions_owner_key_key";`,
    );
    expect(await checkDrift({ schemaPath, databaseUrl: database.url })).toEqual([
      'column "sessions"."title" nullability differs: schema NOT NULL, database NULL',
      'column "sessions"."created_at" type differs: schema timestamp(3), database timestamp(6)',
      'missing unique index on "sessions" ("owner_key")',
      'extra column "messages"."extra" (not in the Prisma schema)',
    ]);
  });

  it('reports every table as missing on a database that was never migrated', async () => {
    database = await scratchDatabase();
    expect(await checkDrift({ schemaPath, databaseUrl: database.url })).toEqual([
      'missing table "sessions"',
      'missing table "messages"',
      'missing table "outbox"',
      'missing enum "SessionStatus"',
    ]);
  });
});
