import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkDrift } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/testing';

const migrationsDir = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
const schemaPath = fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url));

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrationsDir });
});

afterAll(async () => {
  await database?.drop();
});

it('the migrations build exactly the database schema.prisma describes', async () => {
  expect(await checkDrift({ schemaPath, databaseUrl: database.url })).toEqual([]);
});
