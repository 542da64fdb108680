import { describe, expect, it } from 'vitest';
import { readDmmf, shapeFromDmmf } from '../src/shape-from-prisma-schema.ts';
import { typeArgs } from '../src/read-database-shape.ts';

const schema = `
datasource db {
  provider = "postgresql"
}

enum Status {
  OPEN   @map("open")
  CLOSED
  @@map("status")
}

model Session {
  id        String    @id @db.Uuid
  createdAt DateTime  @default(now()) @map("created_at")
  closedAt  DateTime? @map("closed_at") @db.Timestamptz(6)
  meta      Json
  raw       Json      @db.Json
  price     Decimal
  tags      String[]
  status    Status
  code      String    @db.VarChar(20)
  turns     Int       @db.SmallInt
  messages  Message[]

  @@unique([code, turns], map: "session_code")
  @@map("sessions")
}

model Message {
  sessionId String   @map("session_id")
  seq       Int
  session   Session  @relation(fields: [sessionId], references: [id], onDelete: Cascade)
  parentId  String?  @map("parent_id") @db.Uuid
  parent    Session? @relation("parent", fields: [parentId], references: [id])
  @@id([sessionId, seq])
  @@index([parentId])
  @@map("messages")
}
`;

// The opposite side of the optional relation above.
const fullSchema = schema.replace('messages  Message[]', 'messages  Message[]\n  children  Message[] @relation("parent")');

describe('shapeFromDmmf', () => {
  it('maps models to the tables and columns Prisma Migrate creates on PostgreSQL', () => {
    const shape = shapeFromDmmf(readDmmf([['schema.prisma', fullSchema]]));
    const sessions = shape.tables.find((table) => table.name === 'sessions');
    expect(sessions?.columns).toEqual([
      { name: 'id', type: 'uuid', args: [], isEnum: false, isArray: false, nullable: false },
      { name: 'created_at', type: 'timestamp', args: ['3'], isEnum: false, isArray: false, nullable: false },
      { name: 'closed_at', type: 'timestamptz', args: ['6'], isEnum: false, isArray: false, nullable: true },
      { name: 'meta', type: 'jsonb', args: [], isEnum: false, isArray: false, nullable: false },
      { name: 'raw', type: 'json', args: [], isEnum: false, isArray: false, nullable: false },
      { name: 'price', type: 'numeric', args: ['65', '30'], isEnum: false, isArray: false, nullable: false },
      { name: 'tags', type: 'text', args: [], isEnum: false, isArray: true, nullable: false },
      { name: 'status', type: 'status', args: [], isEnum: true, isArray: false, nullable: false },
      { name: 'code', type: 'varchar', args: ['20'], isEnum: false, isArray: false, nullable: false },
      { name: 'turns', type: 'int2', args: [], isEnum: false, isArray: false, nullable: false },
    ]);
    expect(sessions?.primaryKey).toEqual(['id']);
    expect(sessions?.indexes).toEqual([{ name: 'session_code', columns: ['code', 'turns'], unique: true }]);
    expect(shape.enums).toEqual([{ name: 'status', values: ['open', 'CLOSED'] }]);
  });

  it('maps composite keys, indexes and foreign keys with Prisma default actions', () => {
    const messages = shapeFromDmmf(readDmmf([['schema.prisma', fullSchema]])).tables.find((table) => table.name === 'messages');
    expect(messages?.primaryKey).toEqual(['session_id', 'seq']);
    expect(messages?.indexes).toEqual([{ name: null, columns: ['parent_id'], unique: false }]);
    expect(messages?.foreignKeys).toEqual([
      { name: null, columns: ['session_id'], referencedTable: 'sessions', referencedColumns: ['id'], onDelete: 'Cascade', onUpdate: 'Cascade' },
      { name: null, columns: ['parent_id'], referencedTable: 'sessions', referencedColumns: ['id'], onDelete: 'SetNull', onUpdate: 'Cascade' },
    ]);
  });

  it('refuses an invalid schema with a code', () => {
    expect(() => readDmmf([['schema.prisma', 'model A {\n id Int @id\n x Strin\n}\n']])).toThrow(expect.objectContaining({ code: 'PRISMA_SCHEMA_INVALID' }));
  });
});

describe('typeArgs', () => {
  it.each([
    ['character varying(20)', ['20']],
    ['numeric(65,30)', ['65', '30']],
    ['timestamp(3) without time zone', ['3']],
    ['timestamp without time zone', []],
    ['text[]', []],
  ])('%s → %j', (formatted, args) => {
    expect(typeArgs(formatted)).toEqual(args);
  });
});
