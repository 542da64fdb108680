import pg from 'pg';
import type { DatabaseShape } from './compare-shapes.ts';
import { readDatabaseShape } from './read-database-shape.ts';
import { readDmmf, shapeFromDmmf } from './shape-from-prisma-schema.ts';

export type CheckPreviousReleaseOptions = {
  /** The previous release's Prisma schema files as [path, content] (e.g. from `git show <release>:…/schema.prisma`). */
  schemaFiles: [path: string, content: string][];
  /** A database migrated with the new release's migrations. */
  databaseUrl: string;
};

/** A column the database requires and fills with nothing itself (no default, identity or generated value). */
export type RequiredColumn = { table: string; column: string };

/**
 * Whether the previous release's code still works on the new schema, as it must during a rolling update and after a
 * rollback: every table and column its Prisma client maps still exists with the same type, none it reads as required
 * may now hold NULL, none of its enum values is gone, and none of its inserts leaves out a column the database now
 * requires without a default. Returns the breaks as sentences; [] when the previous release fits.
 */
export async function checkPreviousRelease(options: CheckPreviousReleaseOptions): Promise<string[]> {
  const url = new URL(options.databaseUrl);
  const defaultSchema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  const datamodel = readDmmf(options.schemaFiles);
  const previous = shapeFromDmmf(datamodel, defaultSchema);
  const schemas = [...new Set([defaultSchema, ...datamodel.models.map((model) => model.schema ?? defaultSchema)])];
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const actual = await readDatabaseShape(client, schemas, defaultSchema);
    const required = await client.query<{ schema: string; table: string; column: string }>(
      `SELECT n.nspname AS schema, c.relname AS table, a.attname AS column
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
          AND a.attnotnull AND NOT a.atthasdef AND a.attidentity = '' AND a.attgenerated = ''`,
      [schemas],
    );
    const requiredColumns = required.rows.map((row) => ({
      table: row.schema === defaultSchema ? row.table : `${row.schema}.${row.table}`,
      column: row.column,
    }));
    return previousReleaseBreaks(previous, actual, requiredColumns);
  } finally {
    await client.end();
  }
}

/** The pure comparison behind checkPreviousRelease: the previous release's shape against the database's. */
export function previousReleaseBreaks(previous: DatabaseShape, actual: DatabaseShape, requiredColumns: RequiredColumn[]): string[] {
  const breaks: string[] = [];
  const tables = new Map(actual.tables.map((table) => [table.name, table]));
  for (const table of previous.tables) {
    const found = tables.get(table.name);
    if (found === undefined) {
      breaks.push(`table ${table.name} is gone; the previous release reads it`);
      continue;
    }
    const columns = new Map(found.columns.map((column) => [column.name, column]));
    for (const column of table.columns) {
      const now = columns.get(column.name);
      const name = `${table.name}.${column.name}`;
      if (now === undefined) breaks.push(`column ${name} is gone; the previous release reads it`);
      else if (now.type !== column.type || now.isArray !== column.isArray)
        breaks.push(`column ${name} changed type (${column.type} → ${now.type}); the previous release reads it as ${column.type}`);
      else if (now.nullable && !column.nullable) breaks.push(`column ${name} may now be NULL; the previous release reads it as required`);
    }
    const mapped = new Set(table.columns.map((column) => column.name));
    for (const { column } of requiredColumns.filter((required) => required.table === table.name && !mapped.has(required.column))) {
      breaks.push(`column ${table.name}.${column} is required and has no default; the previous release's inserts leave it out`);
    }
  }
  const enums = new Map(actual.enums.map((enumType) => [enumType.name, new Set(enumType.values)]));
  for (const enumType of previous.enums) {
    const values = enums.get(enumType.name);
    if (values === undefined) breaks.push(`enum ${enumType.name} is gone; the previous release reads it`);
    else
      for (const value of enumType.values.filter((value) => !values.has(value)))
        breaks.push(`enum value ${enumType.name}.${value} is gone; the previous release may write it`);
  }
  return breaks;
}
