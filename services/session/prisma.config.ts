import { defineConfig } from 'prisma/config';

// Prisma's env() throws when DATABASE_URL is unset, which would break `prisma generate` in CI.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
