/**
 * The part of a PostgreSQL schema that Prisma owns, in one comparable form, and the comparison itself.
 * Both the Prisma schema (via DMMF) and a live database are turned into this shape, so the rules here
 * stay pure and testable on data.
 */

export type ColumnShape = {
  name: string;
  /** The Postgres type name as pg_type spells it (`text`, `int4`, `timestamp`, …) or the enum's name. */
  type: string;
  /** Type modifiers as written in DDL: `['3']` for TIMESTAMP(3), `['65', '30']` for DECIMAL(65,30). */
  args: string[];
  isEnum: boolean;
  isArray: boolean;
  nullable: boolean;
};

export type IndexShape = {
  /** The schema gives a name only through `map:`; the database always has one. */
  name: string | null;
  columns: string[];
  unique: boolean;
};

export type ForeignKeyShape = {
  name: string | null;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  /** Referential actions as Prisma names them: Cascade, Restrict, NoAction, SetNull, SetDefault. */
  onDelete: string;
  onUpdate: string;
};

export type TableShape = {
  name: string;
  columns: ColumnShape[];
  primaryKey: string[];
  indexes: IndexShape[];
  foreignKeys: ForeignKeyShape[];
};

export type EnumShape = { name: string; values: string[] };

export type DatabaseShape = { tables: TableShape[]; enums: EnumShape[] };

/** Differences between what the Prisma schema expects and what the database has, one sentence each; [] = none. */
export function compareShapes(expected: DatabaseShape, actual: DatabaseShape): string[] {
  const differences: string[] = [];
  const actualTables = byName(actual.tables);
  const expectedTables = byName(expected.tables);
  for (const table of expected.tables) {
    const found = actualTables.get(table.name);
    if (found === undefined) differences.push(`missing table ${q(table.name)}`);
    else differences.push(...compareTables(table, found));
  }
  for (const table of actual.tables) {
    if (!expectedTables.has(table.name)) differences.push(`extra table ${q(table.name)} (not in the Prisma schema)`);
  }
  differences.push(...compareEnums(expected.enums, actual.enums));
  return differences;
}

function compareTables(expected: TableShape, actual: TableShape): string[] {
  const differences: string[] = [];
  const table = q(expected.name);
  const actualColumns = byName(actual.columns);
  const expectedColumns = byName(expected.columns);
  for (const column of expected.columns) {
    const found = actualColumns.get(column.name);
    const where = `${table}.${q(column.name)}`;
    if (found === undefined) {
      differences.push(`missing column ${where} ${renderType(column)}`);
      continue;
    }
    // Prisma gives scalar lists no NOT NULL and ignores their nullability when it diffs, so do we.
    if (!column.isArray && column.nullable !== found.nullable) {
      differences.push(
        `column ${where} nullability differs: schema ${column.nullable ? 'NULL' : 'NOT NULL'}, database ${found.nullable ? 'NULL' : 'NOT NULL'}`,
      );
    }
    if (column.type !== found.type || column.isEnum !== found.isEnum || column.isArray !== found.isArray) {
      differences.push(`column ${where} type family differs: schema ${renderType(column)}, database ${renderType(found)}`);
    } else if (column.args.join(',') !== found.args.join(',')) {
      differences.push(`column ${where} type differs: schema ${renderType(column)}, database ${renderType(found)}`);
    }
  }
  for (const column of actual.columns) {
    if (!expectedColumns.has(column.name)) differences.push(`extra column ${table}.${q(column.name)} (not in the Prisma schema)`);
  }

  if (expected.primaryKey.join(',') !== actual.primaryKey.join(',')) {
    differences.push(`table ${table} primary key differs: schema ${renderColumns(expected.primaryKey)}, database ${renderColumns(actual.primaryKey)}`);
  }

  differences.push(...compareIndexes(table, expected.indexes, actual.indexes));
  differences.push(...compareForeignKeys(table, expected.foreignKeys, actual.foreignKeys));
  return differences;
}

function compareIndexes(table: string, expected: IndexShape[], actual: IndexShape[]): string[] {
  const differences: string[] = [];
  const key = (index: IndexShape) => `${index.unique}:${index.columns.join(',')}`;
  const remaining = [...actual];
  for (const index of expected) {
    const at = remaining.findIndex((candidate) => key(candidate) === key(index));
    const kind = index.unique ? 'unique index' : 'index';
    if (at === -1) {
      differences.push(`missing ${kind}${index.name === null ? '' : ` ${q(index.name)}`} on ${table} ${renderColumns(index.columns)}`);
      continue;
    }
    const [found] = remaining.splice(at, 1);
    if (index.name !== null && found !== undefined && found.name !== index.name) {
      differences.push(`${kind} on ${table} ${renderColumns(index.columns)} is named ${q(found.name ?? '')}, schema maps it to ${q(index.name)}`);
    }
  }
  for (const index of remaining) {
    differences.push(
      `extra ${index.unique ? 'unique index' : 'index'} ${q(index.name ?? '')} on ${table} ${renderColumns(index.columns)} (not in the Prisma schema)`,
    );
  }
  return differences;
}

function compareForeignKeys(table: string, expected: ForeignKeyShape[], actual: ForeignKeyShape[]): string[] {
  const differences: string[] = [];
  const key = (fk: ForeignKeyShape) => `${fk.columns.join(',')}>${fk.referencedTable}(${fk.referencedColumns.join(',')})`;
  const render = (fk: ForeignKeyShape) => `${table} ${renderColumns(fk.columns)} -> ${q(fk.referencedTable)} ${renderColumns(fk.referencedColumns)}`;
  const remaining = [...actual];
  for (const fk of expected) {
    const at = remaining.findIndex((candidate) => key(candidate) === key(fk));
    if (at === -1) {
      differences.push(`missing foreign key ${render(fk)}`);
      continue;
    }
    const [found] = remaining.splice(at, 1);
    if (found !== undefined && (found.onDelete !== fk.onDelete || found.onUpdate !== fk.onUpdate)) {
      differences.push(
        `foreign key ${render(fk)} actions differ: schema onDelete ${fk.onDelete} onUpdate ${fk.onUpdate}, database onDelete ${found.onDelete} onUpdate ${found.onUpdate}`,
      );
    }
  }
  for (const fk of remaining) differences.push(`extra foreign key ${q(fk.name ?? '')} ${render(fk)} (not in the Prisma schema)`);
  return differences;
}

function compareEnums(expected: EnumShape[], actual: EnumShape[]): string[] {
  const differences: string[] = [];
  const actualEnums = byName(actual);
  const expectedEnums = byName(expected);
  for (const enumShape of expected) {
    const found = actualEnums.get(enumShape.name);
    if (found === undefined) {
      differences.push(`missing enum ${q(enumShape.name)}`);
      continue;
    }
    for (const value of enumShape.values) {
      if (!found.values.includes(value)) differences.push(`enum ${q(enumShape.name)} is missing value '${value}'`);
    }
    for (const value of found.values) {
      if (!enumShape.values.includes(value)) differences.push(`enum ${q(enumShape.name)} has extra value '${value}' (not in the Prisma schema)`);
    }
  }
  for (const enumShape of actual) {
    if (!expectedEnums.has(enumShape.name)) differences.push(`extra enum ${q(enumShape.name)} (not in the Prisma schema)`);
  }
  return differences;
}

function renderType(column: ColumnShape): string {
  const base = column.isEnum ? `enum ${q(column.type)}` : column.type;
  return `${base}${column.args.length > 0 ? `(${column.args.join(',')})` : ''}${column.isArray ? '[]' : ''}`;
}

function renderColumns(columns: string[]): string {
  return columns.length === 0 ? '(none)' : `(${columns.map(q).join(', ')})`;
}

function q(name: string): string {
  return `"${name}"`;
}

function byName<T extends { name: string }>(items: T[]): Map<string, T> {
  return new Map(items.map((item) => [item.name, item]));
}
