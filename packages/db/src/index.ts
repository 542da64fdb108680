export { migrate, createDatabaseIfMissing, quoteIdentifier, type MigrateOptions, type MigrateLogger } from './migrate.ts';
export { checkDrift, type CheckDriftOptions } from './check-drift.ts';
export {
  compareShapes,
  type DatabaseShape,
  type TableShape,
  type ColumnShape,
  type IndexShape,
  type ForeignKeyShape,
  type EnumShape,
} from './compare-shapes.ts';
export { checkMigrationSafety } from './check-migration-safety.ts';
export { checkPreviousRelease, previousReleaseBreaks, type CheckPreviousReleaseOptions } from './check-previous-release.ts';
