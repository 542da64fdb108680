import { describe, expect, it } from 'vitest';
import { compareShapes, type ColumnShape, type DatabaseShape, type TableShape } from '../src/compare-shapes.ts';

const column = (name: string, overrides: Partial<ColumnShape> = {}): ColumnShape => ({
  name,
  type: 'text',
  args: [],
  isEnum: false,
  isArray: false,
  nullable: false,
  ...overrides,
});

const sessions = (overrides: Partial<TableShape> = {}): TableShape => ({
  name: 'sessions',
  columns: [column('id'), column('created_at', { type: 'timestamp', args: ['3'] }), column('status', { type: 'Status', isEnum: true })],
  primaryKey: ['id'],
  indexes: [{ name: null, columns: ['created_at'], unique: false }],
  foreignKeys: [],
  ...overrides,
});

const shape = (tables: TableShape[], enums = [{ name: 'Status', values: ['OPEN', 'CLOSED'] }]): DatabaseShape => ({ tables, enums });

describe('compareShapes', () => {
  it('finds nothing when the database matches, whatever the database names unnamed indexes', () => {
    const actual = sessions({ indexes: [{ name: 'sessions_created_at_idx', columns: ['created_at'], unique: false }] });
    expect(compareShapes(shape([sessions()]), shape([actual]))).toEqual([]);
  });

  it('reports missing and extra tables and columns', () => {
    const other: TableShape = { name: 'other', columns: [column('id')], primaryKey: ['id'], indexes: [], foreignKeys: [] };
    const actual = sessions({ columns: [column('id'), column('created_at', { type: 'timestamp', args: ['3'] }), column('note', { nullable: true })] });
    expect(compareShapes(shape([sessions(), other]), shape([actual, { ...other, name: 'stray' }]))).toEqual([
      'missing column "sessions"."status" enum "Status"',
      'extra column "sessions"."note" (not in the Prisma schema)',
      'missing table "other"',
      'extra table "stray" (not in the Prisma schema)',
    ]);
  });

  it('reports nullability, type family and type modifiers, but not the nullability of lists', () => {
    const expected = sessions({ columns: [column('id'), column('created_at', { type: 'timestamp', args: ['3'] }), column('tags', { isArray: true })] });
    const actual = sessions({
      columns: [
        column('id', { nullable: true, type: 'varchar' }),
        column('created_at', { type: 'timestamp', args: ['6'] }),
        column('tags', { isArray: true, nullable: true }),
      ],
    });
    expect(compareShapes(shape([expected]), shape([actual]))).toEqual([
      'column "sessions"."id" nullability differs: schema NOT NULL, database NULL',
      'column "sessions"."id" type family differs: schema text, database varchar',
      'column "sessions"."created_at" type differs: schema timestamp(3), database timestamp(6)',
    ]);
  });

  it('tells jsonb from json and an enum from text', () => {
    const expected = sessions({ columns: [column('id'), column('meta', { type: 'jsonb' }), column('status', { type: 'Status', isEnum: true })] });
    const actual = sessions({ columns: [column('id'), column('meta', { type: 'json' }), column('status')] });
    expect(compareShapes(shape([expected]), shape([actual]))).toEqual([
      'column "sessions"."meta" type family differs: schema jsonb, database json',
      'column "sessions"."status" type family differs: schema enum "Status", database text',
    ]);
  });

  it('reports primary keys, unique and plain indexes, and names the schema maps', () => {
    const expected = sessions({
      primaryKey: ['id', 'created_at'],
      indexes: [
        { name: null, columns: ['created_at'], unique: false },
        { name: null, columns: ['status'], unique: true },
        { name: 'custom_name', columns: ['id', 'status'], unique: true },
      ],
    });
    const actual = sessions({
      primaryKey: ['id'],
      indexes: [
        { name: 'sessions_created_at_idx', columns: ['created_at'], unique: true },
        { name: 'sessions_id_status_key', columns: ['id', 'status'], unique: true },
      ],
    });
    expect(compareShapes(shape([expected]), shape([actual]))).toEqual([
      'table "sessions" primary key differs: schema ("id", "created_at"), database ("id")',
      'missing index on "sessions" ("created_at")',
      'missing unique index on "sessions" ("status")',
      'unique index on "sessions" ("id", "status") is named "sessions_id_status_key", schema maps it to "custom_name"',
      'extra unique index "sessions_created_at_idx" on "sessions" ("created_at") (not in the Prisma schema)',
    ]);
  });

  it('reports foreign keys and their actions', () => {
    const fk = { name: null, columns: ['session_id'], referencedTable: 'sessions', referencedColumns: ['id'], onDelete: 'Cascade', onUpdate: 'Cascade' };
    const messages = (foreignKeys: TableShape['foreignKeys']): TableShape => ({
      name: 'messages',
      columns: [column('session_id')],
      primaryKey: [],
      indexes: [],
      foreignKeys,
    });
    expect(compareShapes(shape([sessions(), messages([fk])]), shape([sessions(), messages([{ ...fk, name: 'messages_session_id_fkey' }])]))).toEqual([]);
    expect(compareShapes(shape([sessions(), messages([fk])]), shape([sessions(), messages([{ ...fk, onDelete: 'Restrict' }])]))).toEqual([
      'foreign key "messages" ("session_id") -> "sessions" ("id") actions differ: schema onDelete Cascade onUpdate Cascade, database onDelete Restrict onUpdate Cascade',
    ]);
    expect(compareShapes(shape([sessions(), messages([fk])]), shape([sessions(), messages([])]))).toEqual([
      'missing foreign key "messages" ("session_id") -> "sessions" ("id")',
    ]);
  });

  it('reports enums and their values', () => {
    expect(
      compareShapes(
        shape([sessions()]),
        shape(
          [sessions()],
          [
            { name: 'Status', values: ['OPEN', 'ARCHIVED'] },
            { name: 'Old', values: [] },
          ],
        ),
      ),
    ).toEqual([
      `enum "Status" is missing value 'CLOSED'`,
      `enum "Status" has extra value 'ARCHIVED' (not in the Prisma schema)`,
      'extra enum "Old" (not in the Prisma schema)',
    ]);
  });
});
