import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { compareShapes } from './compare-shapes.ts';
import { readDatabaseShape } from './read-database-shape.ts';
import { readDmmf, shapeFromDmmf } from './shape-from-prisma-schema.ts';

export type CheckDriftOptions = {
  /** A schema.prisma file, or a folder of .prisma files (Prisma's multi-file schema). */
  schemaPath: string;
  databaseUrl: string;
};

/**
 * Compares the Prisma schema with the migrated database (tables, columns, nullability, types, keys,
 * indexes, foreign keys, enums) and returns the differences as sentences; [] means none. Works offline.
 */
export async function checkDrift(options: CheckDriftOptions): Promise<string[]> {
  const files = await readSchemaFiles(options.schemaPath);
  const url = new URL(options.databaseUrl);
  // Prisma's `?schema=` picks the default schema; pg does not know the parameter.
  const defaultSchema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');

  const datamodel = readDmmf(files);
  const expected = shapeFromDmmf(datamodel, defaultSchema);
  const schemas = [...new Set([defaultSchema, ...datamodel.models.map((model) => model.schema ?? defaultSchema)])];

  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const actual = await readDatabaseShape(client, schemas, defaultSchema);
    return compareShapes(expected, actual);
  } finally {
    await client.end();
  }
}

async function readSchemaFiles(schemaPath: string): Promise<[string, string][]> {
  if (!(await stat(schemaPath)).isDirectory()) return [[schemaPath, await readFile(schemaPath, 'utf8')]];
  const entries = await readdir(schemaPath, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.prisma'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  return Promise.all(paths.map(async (path): Promise<[string, string]> => [path, await readFile(path, 'utf8')]));
}
