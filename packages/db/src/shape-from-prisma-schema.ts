import { get_dmmf } from '@prisma/prisma-schema-wasm';
import { appError } from '@relay/errors';
import type { ColumnShape, DatabaseShape, ForeignKeyShape, IndexShape, TableShape } from './compare-shapes.ts';

/** The parts of Prisma's DMMF datamodel that map to PostgreSQL objects. */
type DmmfField = {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
};
type DmmfModel = {
  name: string;
  dbName: string | null;
  schema?: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
};
type DmmfEnum = { name: string; dbName?: string | null; values: { name: string; dbName: string | null }[] };
type DmmfIndex = {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  fields: { name: string }[];
};
export type DmmfDatamodel = { models: DmmfModel[]; enums: DmmfEnum[]; indexes: DmmfIndex[] };

/** Prisma's PostgreSQL type for each scalar when no `@db.*` attribute is given (see its migration SQL). */
const DEFAULT_TYPES: Record<string, { type: string; args: string[] }> = {
  String: { type: 'text', args: [] },
  Boolean: { type: 'bool', args: [] },
  Int: { type: 'int4', args: [] },
  BigInt: { type: 'int8', args: [] },
  Float: { type: 'float8', args: [] },
  Decimal: { type: 'numeric', args: ['65', '30'] },
  DateTime: { type: 'timestamp', args: ['3'] },
  Json: { type: 'jsonb', args: [] },
  Bytes: { type: 'bytea', args: [] },
};

/** `@db.*` native types to the name pg_type gives them. */
const NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Char: 'bpchar',
  VarChar: 'varchar',
  Bit: 'bit',
  VarBit: 'varbit',
  Uuid: 'uuid',
  Xml: 'xml',
  Inet: 'inet',
  Citext: 'citext',
  Boolean: 'bool',
  Integer: 'int4',
  SmallInt: 'int2',
  Oid: 'oid',
  BigInt: 'int8',
  DoublePrecision: 'float8',
  Real: 'float4',
  Decimal: 'numeric',
  Money: 'money',
  Timestamp: 'timestamp',
  Timestamptz: 'timestamptz',
  Date: 'date',
  Time: 'time',
  Timetz: 'timetz',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
};

/** Parses Prisma schema files offline (Prisma's own WASM build) into Prisma's DMMF datamodel. */
export function readDmmf(files: [path: string, content: string][]): DmmfDatamodel {
  let output: string;
  try {
    output = get_dmmf(JSON.stringify({ prismaSchema: files, noColor: true }));
  } catch (error) {
    const raw = error instanceof Error ? error.message : String(error);
    let message = raw;
    try {
      message = (JSON.parse(raw) as { message?: string }).message ?? raw;
    } catch {
      // Not JSON: keep the engine's text as it is.
    }
    throw appError('PRISMA_SCHEMA_INVALID', `the Prisma schema is invalid: ${message}`, { cause: error });
  }
  return (JSON.parse(output) as { datamodel: DmmfDatamodel }).datamodel;
}

/**
 * The tables, columns, keys, indexes and enums `prisma migrate` would create for this datamodel.
 * Models in `defaultSchema` are named bare; models elsewhere (multiSchema) as `schema.table`.
 */
export function shapeFromDmmf(datamodel: DmmfDatamodel, defaultSchema = 'public'): DatabaseShape {
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const enums = new Map(datamodel.enums.map((enumType) => [enumType.name, enumType]));
  const tableName = (model: DmmfModel) => qualify(model.schema ?? defaultSchema, model.dbName ?? model.name, defaultSchema);
  const columnName = (model: DmmfModel, field: string) => {
    const found = model.fields.find((candidate) => candidate.name === field);
    return found?.dbName ?? field;
  };

  const tables = datamodel.models.map((model): TableShape => {
    const columns = model.fields
      .filter((field) => field.kind === 'scalar' || field.kind === 'enum')
      .map((field): ColumnShape => {
        const type = field.kind === 'enum' ? enumType(enums.get(field.type), field.type) : scalarType(field);
        return {
          name: field.dbName ?? field.name,
          ...type,
          isEnum: field.kind === 'enum',
          isArray: field.isList,
          nullable: !field.isRequired,
        };
      });
    const idField = model.fields.find((field) => field.isId);
    const primaryKey = idField !== undefined ? [idField.dbName ?? idField.name] : (model.primaryKey?.fields ?? []).map((field) => columnName(model, field));
    const indexes = datamodel.indexes
      .filter((index) => index.model === model.name && (index.type === 'unique' || index.type === 'normal'))
      .map((index): IndexShape => ({
        name: index.dbName ?? null,
        columns: index.fields.map((field) => columnName(model, field.name)),
        unique: index.type === 'unique',
      }));
    const foreignKeys = model.fields
      .filter((field) => field.kind === 'object' && (field.relationFromFields?.length ?? 0) > 0)
      .map((field): ForeignKeyShape => {
        const target = models.get(field.type);
        if (target === undefined) throw new Error(`relation ${model.name}.${field.name} points to unknown model ${field.type}`);
        return {
          name: null,
          columns: (field.relationFromFields ?? []).map((name) => columnName(model, name)),
          referencedTable: tableName(target),
          referencedColumns: (field.relationToFields ?? []).map((name) => columnName(target, name)),
          // Prisma's defaults: Restrict for a required relation, SetNull for an optional one; Cascade on update.
          onDelete: field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull'),
          onUpdate: field.relationOnUpdate ?? 'Cascade',
        };
      });
    return { name: tableName(model), columns, primaryKey, indexes, foreignKeys };
  });

  return {
    tables,
    enums: datamodel.enums.map((enumType) => ({
      name: enumType.dbName ?? enumType.name,
      values: enumType.values.map((value) => value.dbName ?? value.name),
    })),
  };
}

function scalarType(field: DmmfField): { type: string; args: string[] } {
  if (field.nativeType != null) {
    const [native, args] = field.nativeType;
    const type = NATIVE_TYPES[native];
    if (type === undefined) throw new Error(`unknown native type @db.${native} on field ${field.name}`);
    return { type, args };
  }
  const type = DEFAULT_TYPES[field.type];
  if (type === undefined) throw new Error(`unknown Prisma scalar type ${field.type} on field ${field.name}`);
  return type;
}

function enumType(enumDefinition: DmmfEnum | undefined, name: string): { type: string; args: string[] } {
  return { type: enumDefinition?.dbName ?? name, args: [] };
}

/** How both sides name a table: bare in the default schema, `schema.table` elsewhere. */
export function qualify(schema: string, table: string, defaultSchema: string): string {
  return schema === defaultSchema ? table : `${schema}.${table}`;
}
