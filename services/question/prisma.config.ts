import { defineConfig } from 'prisma/config';

// Prisma's env() throws when the variable is unset, which would break `prisma generate` without a database.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
