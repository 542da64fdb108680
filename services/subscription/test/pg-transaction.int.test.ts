// The pipeline's transactions on a pg connection (docs/adr/0025) keep what Prisma's interactive transactions gave:
// all or nothing, timestamps read as UTC, and past the timeout a rollback at once that releases the locks.
import { createTestDatabase, type TestDatabase } from '@relay/testing';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pgTransaction, pgTransactionalSql } from '../src/adapters/store/sql-statement.ts';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
  pool = new pg.Pool({ connectionString: database.url });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const insertWatcher = (id: string) =>
  `INSERT INTO watchers (session_id, user_id, state, next_evaluation_at) VALUES ('${id}', 'u1', '{}', '2026-10-24 10:00:00.000')`;

it('commits all of its statements or none, and reads timestamp(3) columns as UTC', async () => {
  await expect(
    pgTransaction(pool, async (sql) => {
      await sql.$executeRawUnsafe(insertWatcher('w-failed'));
      throw new Error('the work failed');
    }),
  ).rejects.toThrow('the work failed');
  await pgTransaction(pool, (sql) => sql.$executeRawUnsafe(insertWatcher('w-done')));

  const rows = await pgTransactionalSql(pool).$queryRawUnsafe<{ session_id: string; next_evaluation_at: Date }[]>(
    'SELECT session_id, next_evaluation_at FROM watchers ORDER BY session_id',
  );
  expect(rows).toEqual([{ session_id: 'w-done', next_evaluation_at: new Date('2026-10-24T10:00:00.000Z') }]);
});

it('past its timeout it is rolled back at once, its locks released, and its next statement fails', async () => {
  await pgTransaction(pool, (sql) => sql.$executeRawUnsafe(insertWatcher('w-locked')));
  let finish!: () => void;
  const waiting = new Promise<void>((resolve) => (finish = resolve));
  const held = pgTransactionalSql(pool).$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(`SELECT session_id FROM watchers WHERE session_id = 'w-locked' FOR UPDATE`);
      await waiting;
      await tx.$executeRawUnsafe(`UPDATE watchers SET seq = 1 WHERE session_id = 'w-locked'`);
    },
    { timeout: 200 },
  );
  const failed = expect(held).rejects.toThrow('rolled back');

  // Another transaction gets the row while the first one still waits: its lock went with the rollback.
  await pgTransaction(pool, (sql) => sql.$queryRawUnsafe(`SELECT session_id FROM watchers WHERE session_id = 'w-locked' FOR UPDATE`));
  finish();
  await failed;
  const [row] = await pgTransactionalSql(pool).$queryRawUnsafe<{ seq: number }[]>(`SELECT seq FROM watchers WHERE session_id = 'w-locked'`);
  expect(row).toEqual({ seq: 0 });
});
