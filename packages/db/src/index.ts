export { migrate, createDatabaseIfMissing, quoteIdentifier, type MigrateOptions, type MigrateLogger } from './migrate.ts';
