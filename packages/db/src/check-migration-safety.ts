/**
 * Expand/contract, checked on a migration's text. During a rolling update and after a rollback the previous release
 * runs against the new schema, so a migration may only add: tables, nullable columns, columns with a default,
 * indexes. A statement that takes away or changes what a release may read or write (a dropped or renamed table or
 * column, a changed type, a column made NOT NULL, a required column without a default on a table that already
 * existed, a dropped type) is a contract step: allowed only when the migration names its object in a comment saying
 * since which release nothing reads it:
 *
 *   -- contract: sessions.asked_about unread since 0.9.20
 *
 * Pure: the text in, the unsafe statements out.
 */

/** A statement that can break the release before it, and what it touches (`table` or `table.column`). */
export type UnsafeStatement = { object: string; problem: string; statement: string };

/** Statements of `sql` that the previous release may not survive, whether or not a contract comment covers them. */
export function unsafeStatements(sql: string): UnsafeStatement[] {
  const statements = stripComments(sql)
    .split(';')
    .map((statement) => statement.replace(/\s+/g, ' ').trim())
    .filter((statement) => statement !== '');
  const created = new Set(
    statements.flatMap((statement) => [...statement.matchAll(/^CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(\S+)/gi)].map((m) => bare(m[1]!))),
  );
  const found: UnsafeStatement[] = [];
  for (const statement of statements) {
    const add = (object: string, problem: string) => found.push({ object, problem, statement });
    const dropTable = /^DROP TABLE (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$/i.exec(statement);
    if (dropTable) for (const table of dropTable[1]!.split(',')) add(bare(table), 'drops a table');
    const dropType = /^DROP TYPE (?:IF EXISTS )?(\S+)/i.exec(statement);
    if (dropType) add(bare(dropType[1]!), 'drops a type');
    if (/^ALTER TYPE \S+ RENAME/i.test(statement)) add(bare(statement.split(' ')[2]!), 'renames a type or one of its values');
    const alter = /^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?(\S+) (.*)$/i.exec(statement);
    if (alter === null) continue;
    const table = bare(alter[1]!);
    const renameTable = /^RENAME TO (\S+)/i.exec(alter[2]!);
    if (renameTable) {
      add(table, 'renames a table');
      continue;
    }
    const renameColumn = /^RENAME (?:COLUMN )?(\S+) TO/i.exec(alter[2]!);
    if (renameColumn) {
      add(`${table}.${bare(renameColumn[1]!)}`, 'renames a column');
      continue;
    }
    for (const clause of splitClauses(alter[2]!)) {
      const dropColumn = /^DROP (?:COLUMN )?(?:IF EXISTS )?("[^"]+"|\w+)/i.exec(clause);
      if (dropColumn && !/^DROP (CONSTRAINT|DEFAULT|NOT NULL)/i.test(clause)) add(`${table}.${bare(dropColumn[1]!)}`, 'drops a column');
      const alterColumn = /^ALTER (?:COLUMN )?("[^"]+"|\w+) (.*)$/i.exec(clause);
      if (alterColumn) {
        const column = `${table}.${bare(alterColumn[1]!)}`;
        if (/^SET NOT NULL/i.test(alterColumn[2]!)) add(column, 'makes a column NOT NULL');
        if (/^(SET DATA )?TYPE /i.test(alterColumn[2]!)) add(column, "changes a column's type");
      }
      const addColumn = /^ADD (?:COLUMN )?(?:IF NOT EXISTS )?("[^"]+"|\w+) (.*)$/i.exec(clause);
      if (addColumn && !/^ADD (CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK)/i.test(clause) && !created.has(table)) {
        const definition = addColumn[2]!;
        const required = /\bNOT NULL\b/i.test(definition) || /\bPRIMARY KEY\b/i.test(definition);
        const filled = /\bDEFAULT\b/i.test(definition) || /\bGENERATED\b/i.test(definition) || /^(SMALL|BIG)?SERIAL\b/i.test(definition);
        if (required && !filled) add(`${table}.${bare(addColumn[1]!)}`, 'adds a required column without a default (the previous release inserts without it)');
      }
    }
  }
  return found;
}

/** The objects a migration's `-- contract: <object> unread since <release>` comments name. */
export function contractedObjects(sql: string): Set<string> {
  return new Set([...sql.matchAll(/^\s*--\s*contract:\s*([\w.]+)\s+unread since\s+\S+/gim)].map((m) => m[1]!));
}

/**
 * What in migration `name` breaks the release before it and is not a declared contract step, one sentence each;
 * [] when the migration is additive or every contract step names its object and the release that stopped reading it.
 */
export function checkMigrationSafety(name: string, sql: string): string[] {
  const contracted = contractedObjects(sql);
  return unsafeStatements(sql)
    .filter(({ object }) => !contracted.has(object) && !contracted.has(object.split('.')[0]!))
    .map(
      ({ object, problem, statement }) =>
        `${name}: ${problem}: ${object} (\`${statement.length > 120 ? `${statement.slice(0, 117)}…` : statement}\`); ` +
        `the release before it still reads it. Add it now and drop it a release later, with \`-- contract: ${object} unread since <release>\``,
    );
}

/** SQL without its `--` line comments and `/* … *\/` block comments (string literals holding `--` are rare in DDL). */
function stripComments(sql: string): string {
  return sql.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ');
}

/** An ALTER TABLE's comma-separated actions, commas inside parentheses kept. */
function splitClauses(actions: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of actions) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      clauses.push(current.trim());
      current = '';
    } else current += char;
  }
  clauses.push(current.trim());
  return clauses.filter((clause) => clause !== '');
}

/** An identifier without its quotes and schema: `"public"."sessions"` → `sessions`. */
function bare(identifier: string): string {
  const parts = identifier.trim().split('.');
  return parts[parts.length - 1]!.replaceAll('"', '');
}
