import type pg from 'pg';
import type { DatabaseShape, ForeignKeyShape, TableShape } from './compare-shapes.ts';
import { qualify } from './shape-from-prisma-schema.ts';

/** Tables a migration tool keeps for itself, never part of the Prisma schema. */
const BOOKKEEPING_TABLES = new Set(['_prisma_migrations']);

/** pg_constraint's one-letter referential actions in Prisma's words. */
const ACTIONS: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

type Queryable = Pick<pg.Client, 'query'>;

/** Reads the tables, columns, keys, indexes and enums of the given schemas from pg_catalog. */
export async function readDatabaseShape(client: Queryable, schemas: string[], defaultSchema = 'public'): Promise<DatabaseShape> {
  const name = (schema: string, table: string) => qualify(schema, table, defaultSchema);

  const tableRows = await client.query<{ schema: string; table: string }>(
    `SELECT n.nspname AS schema, c.relname AS table
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname = ANY($1)
      ORDER BY 1, 2`,
    [schemas],
  );
  const tables = new Map<string, TableShape>();
  for (const row of tableRows.rows) {
    if (BOOKKEEPING_TABLES.has(row.table)) continue;
    tables.set(name(row.schema, row.table), { name: name(row.schema, row.table), columns: [], primaryKey: [], indexes: [], foreignKeys: [] });
  }

  const columnRows = await client.query<{
    schema: string;
    table: string;
    column: string;
    nullable: boolean;
    type_name: string;
    element_name: string | null;
    is_enum: boolean;
    formatted: string;
  }>(
    `SELECT n.nspname AS schema, c.relname AS table, a.attname AS column, NOT a.attnotnull AS nullable,
            t.typname AS type_name, e.typname AS element_name,
            coalesce(e.typtype, t.typtype) = 'e' AS is_enum,
            format_type(a.atttypid, a.atttypmod) AS formatted
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type e ON t.typcategory = 'A' AND e.oid = t.typelem
      WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND n.nspname = ANY($1)
      ORDER BY 1, 2, a.attnum`,
    [schemas],
  );
  for (const row of columnRows.rows) {
    tables.get(name(row.schema, row.table))?.columns.push({
      name: row.column,
      type: row.element_name ?? row.type_name,
      args: typeArgs(row.formatted),
      isEnum: row.is_enum,
      isArray: row.element_name !== null,
      nullable: row.nullable,
    });
  }

  const indexRows = await client.query<{ schema: string; table: string; index: string; primary: boolean; unique: boolean; columns: string[] }>(
    `SELECT n.nspname AS schema, c.relname AS table, ic.relname AS index, i.indisprimary AS primary, i.indisunique AS unique,
            array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                   WHERE k.position <= i.indnkeyatts ORDER BY k.position) AS columns
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ANY($1)
      ORDER BY 1, 2, 3`,
    [schemas],
  );
  for (const row of indexRows.rows) {
    const table = tables.get(name(row.schema, row.table));
    if (table === undefined) continue;
    if (row.primary) table.primaryKey = row.columns;
    else table.indexes.push({ name: row.index, columns: row.columns, unique: row.unique });
  }

  const foreignKeyRows = await client.query<{
    schema: string;
    table: string;
    name: string;
    columns: string[];
    referenced_schema: string;
    referenced_table: string;
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(
    `SELECT n.nspname AS schema, c.relname AS table, k.conname AS name,
            array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY x(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum ORDER BY x.position) AS columns,
            rn.nspname AS referenced_schema, rc.relname AS referenced_table,
            array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY x(attnum, position)
                    JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum ORDER BY x.position) AS referenced_columns,
            k.confdeltype AS on_delete, k.confupdtype AS on_update
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_class rc ON rc.oid = k.confrelid
       JOIN pg_namespace rn ON rn.oid = rc.relnamespace
      WHERE k.contype = 'f' AND n.nspname = ANY($1)
      ORDER BY 1, 2, 3`,
    [schemas],
  );
  for (const row of foreignKeyRows.rows) {
    const foreignKey: ForeignKeyShape = {
      name: row.name,
      columns: row.columns,
      referencedTable: name(row.referenced_schema, row.referenced_table),
      referencedColumns: row.referenced_columns,
      onDelete: ACTIONS[row.on_delete] ?? row.on_delete,
      onUpdate: ACTIONS[row.on_update] ?? row.on_update,
    };
    tables.get(name(row.schema, row.table))?.foreignKeys.push(foreignKey);
  }

  const enumRows = await client.query<{ name: string; values: string[] }>(
    `SELECT t.typname AS name, array(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS values
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE t.typtype = 'e' AND n.nspname = ANY($1)
      ORDER BY 1`,
    [schemas],
  );

  return { tables: [...tables.values()], enums: enumRows.rows };
}

/** `character varying(20)` → ['20'], `numeric(65,30)` → ['65', '30'], `timestamp(3) without time zone` → ['3']. */
export function typeArgs(formatted: string): string[] {
  const match = /\(([^)]*)\)/.exec(formatted);
  return match?.[1] === undefined ? [] : match[1].split(',').map((arg) => arg.trim());
}
