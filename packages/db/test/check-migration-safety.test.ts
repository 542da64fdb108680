import { describe, expect, it } from 'vitest';
import { checkMigrationSafety } from '../src/check-migration-safety.ts';
import { previousReleaseBreaks } from '../src/check-previous-release.ts';
import type { ColumnShape, DatabaseShape } from '../src/compare-shapes.ts';

describe('checkMigrationSafety (expand/contract)', () => {
  it('passes what only adds: tables, nullable columns, columns with a default, indexes, a required column on a new table', () => {
    const sql = `-- a comment that says DROP COLUMN "x" is not a statement
      CREATE TABLE "notes" ("id" TEXT NOT NULL, CONSTRAINT "notes_pkey" PRIMARY KEY ("id"));
      ALTER TABLE "notes" ADD COLUMN "body" TEXT NOT NULL;
      ALTER TABLE "sessions" ADD COLUMN "ask_mark" INTEGER NOT NULL DEFAULT 0, ADD COLUMN "hint" TEXT;
      ALTER TABLE "sessions" ALTER COLUMN "hint" SET DEFAULT 'x', ADD CONSTRAINT "c" CHECK ("ask_mark" >= 0);
      ALTER TABLE "sessions" ALTER COLUMN "title" DROP NOT NULL;
      CREATE INDEX "sessions_ask_mark_idx" ON "sessions"("ask_mark");`;
    expect(checkMigrationSafety('20270101000000_add', sql)).toEqual([]);
  });

  it('refuses the ask_mark change: a dropped column the release before still selects', () => {
    const sql = `ALTER TABLE "sessions" ADD COLUMN "ask_mark" INTEGER NOT NULL DEFAULT 0;
      UPDATE "sessions" SET "ask_mark" = nextval('session_ask_marks') WHERE "asked_about";
      ALTER TABLE "sessions" DROP COLUMN "asked_about";`;
    const found = checkMigrationSafety('20261204180000_ask_mark', sql);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('drops a column: sessions.asked_about');
  });

  it.each([
    ['DROP TABLE "tasks"', 'tasks'],
    ['ALTER TABLE "tasks" DROP COLUMN "output_path", ADD COLUMN "lease_until" TIMESTAMP(3)', 'tasks.output_path'],
    ['ALTER TABLE "tasks" RENAME COLUMN "output" TO "text"', 'tasks.output'],
    ['ALTER TABLE "tasks" RENAME TO "jobs"', 'tasks'],
    ['ALTER TABLE "tasks" ALTER COLUMN "name" SET NOT NULL', 'tasks.name'],
    ['ALTER TABLE "tasks" ALTER COLUMN "size" SET DATA TYPE BIGINT', 'tasks.size'],
    ['ALTER TABLE "tasks" ALTER COLUMN "size" TYPE BIGINT', 'tasks.size'],
    ['ALTER TABLE "paired_relays" ADD COLUMN "owner_user_id" TEXT NOT NULL', 'paired_relays.owner_user_id'],
    ['DROP TYPE "Status"', 'Status'],
  ])('refuses %s', (sql, object) => {
    const found = checkMigrationSafety('m', sql);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`: ${object} (`);
  });

  it('passes a contract step that names its object and the release that stopped reading it, and only that one', () => {
    const sql = `-- contract: sessions.asked_about unread since 0.9.20
      ALTER TABLE "sessions" DROP COLUMN "asked_about";
      ALTER TABLE "sessions" DROP COLUMN "other";`;
    const found = checkMigrationSafety('m', sql);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('sessions.other');
    // Without the release, the comment does not count.
    expect(checkMigrationSafety('m', '-- contract: sessions.asked_about\nALTER TABLE "sessions" DROP COLUMN "asked_about";')).toHaveLength(1);
  });
});

describe('previousReleaseBreaks', () => {
  const column = (name: string, overrides: Partial<ColumnShape> = {}): ColumnShape => ({
    name,
    type: 'text',
    args: [],
    isEnum: false,
    isArray: false,
    nullable: false,
    ...overrides,
  });
  const shape = (columns: ColumnShape[], values = ['a', 'b']): DatabaseShape => ({
    tables: [{ name: 'sessions', columns, primaryKey: ['id'], indexes: [], foreignKeys: [] }],
    enums: [{ name: 'Status', values }],
  });

  it('is empty when the database only added to what the previous release maps', () => {
    const previous = shape([column('id'), column('title', { nullable: true })]);
    const actual = shape([column('id'), column('title', { nullable: true }), column('ask_mark', { type: 'int4' })], ['a', 'b', 'c']);
    expect(previousReleaseBreaks(previous, actual, [{ table: 'sessions', column: 'id' }])).toEqual([]);
  });

  it('names each break: a column gone, a type changed, a required column now nullable, a new required column without default, an enum value gone, a table gone', () => {
    const before = shape([column('id'), column('asked_about', { type: 'bool' }), column('size', { type: 'int4' }), column('title')]);
    const previous: DatabaseShape = { ...before, tables: [...before.tables, { name: 'tasks', columns: [], primaryKey: [], indexes: [], foreignKeys: [] }] };
    const actual = shape([column('id'), column('size', { type: 'int8' }), column('title', { nullable: true }), column('owner')], ['a']);
    expect(previousReleaseBreaks(previous, actual, [{ table: 'sessions', column: 'owner' }])).toEqual([
      'column sessions.asked_about is gone; the previous release reads it',
      'column sessions.size changed type (int4 → int8); the previous release reads it as int4',
      'column sessions.title may now be NULL; the previous release reads it as required',
      "column sessions.owner is required and has no default; the previous release's inserts leave it out",
      'table tasks is gone; the previous release reads it',
      'enum value Status.b is gone; the previous release may write it',
    ]);
  });
});
