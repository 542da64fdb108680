// Upgrades are tested, not promised (docs/deploy.md, "Upgrades and rollbacks"). During a rolling update, and after a
// rollback, the previous release's pods run against the new schema. Two checks hold that:
//  - every migration is additive, or a contract step that says which release stopped reading what it drops
//    (expand/contract, checked on its text);
//  - the previous release's Prisma schema fits a database migrated by this tree's migrations: every table, column and
//    enum value it maps is still there with its type, and none of its inserts leaves out a new required column.
// "The previous release": RELAY_UPGRADE_FROM (a git revision) when set, else the newest `v*` tag before HEAD; and
// always main's parent (HEAD~1) and HEAD itself, so uncommitted migrations are held to what runs now.
// The ask_mark change (it dropped sessions.asked_about while the code before it still selected it) is replayed from
// git and must be refused by both checks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkMigrationSafety, checkPreviousRelease } from '@relay/db';
import { createTestDatabase } from '@relay/testing';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SERVICES = readdirSync(join(root, 'services')).filter((service) => {
  try {
    return readdirSync(join(root, 'services', service, 'prisma')).includes('schema.prisma');
  } catch {
    return false;
  }
});

/**
 * Migrations applied before the rule was checked. They cannot be amended (relay-migrate refuses an applied migration
 * whose text changed: MIGRATION_CHANGED), so they are named here, each with what it did; no new name may join them.
 */
const BEFORE_THE_RULE = new Map([
  ['pairing/20261130080000_pairing', 'emptied paired_relays first (pairings made before it could not be used), then changed its columns'],
  ['session/20261130510000_task_output_in_database', 'tasks.output_path: task output moved into PostgreSQL (ADR 0010) in one step'],
  ['pairing/20261202040000_pairing_unique', 'paired_relays.name_key filled for every row before it was made NOT NULL'],
  ['session/20261204180000_ask_mark', 'dropped sessions.asked_about in the release that stopped reading it: the break this test exists for'],
]);

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

function tryGit(...args: string[]): string | undefined {
  try {
    return git(...args);
  } catch {
    return undefined;
  }
}

/** The revisions whose schemas this tree's migrations must keep working: the last release, main's parent, HEAD. */
function previousReleases(): { label: string; commit: string }[] {
  const candidates: [string, string | undefined][] = [
    ['RELAY_UPGRADE_FROM', process.env['RELAY_UPGRADE_FROM'] || undefined],
    ['the last release', tryGit('describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD')],
    ["main's parent", 'HEAD~1'],
    ['HEAD', 'HEAD'],
  ];
  const seen = new Set<string>();
  const found: { label: string; commit: string }[] = [];
  for (const [label, revision] of candidates) {
    if (revision === undefined) continue;
    const commit = tryGit('rev-parse', '--verify', '--quiet', `${revision}^{commit}`);
    if (commit === undefined) {
      if (label === 'RELAY_UPGRADE_FROM') throw new Error(`RELAY_UPGRADE_FROM=${revision} is no commit here`);
      continue;
    }
    if (seen.has(commit)) continue;
    seen.add(commit);
    found.push({ label: `${label} (${revision}, ${commit.slice(0, 7)})`, commit });
  }
  return found;
}

const scratch: string[] = [];
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** A service's migrations folder as it was at `commit`, written out to a scratch folder. */
function migrationsAt(commit: string, service: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'relay-migrations-'));
  scratch.push(folder);
  execFileSync('sh', ['-c', `git archive ${commit} services/${service}/prisma/migrations | tar -x -C "${folder}"`], { cwd: root });
  return join(folder, 'services', service, 'prisma', 'migrations');
}

/** Breaks of the previous release (its schema at `commit`) against a database made by `migrationsDir`. */
async function breaksAgainst(commit: string, service: string, migrationsDir: string): Promise<string[]> {
  const path = `services/${service}/prisma/schema.prisma`;
  const schema = tryGit('show', `${commit}:${path}`);
  if (schema === undefined) return []; // the service did not exist yet: nothing of it runs
  const database = await createTestDatabase({ migrationsDir });
  try {
    return await checkPreviousRelease({ schemaFiles: [[path, schema]], databaseUrl: database.url });
  } finally {
    await database.drop();
  }
}

describe('migrations are additive unless a contract step says which release stopped reading it', () => {
  it.each(SERVICES)('%s', (service) => {
    const folder = join(root, 'services', service, 'prisma', 'migrations');
    const findings: string[] = [];
    for (const entry of readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const name = entry.name;
      if (BEFORE_THE_RULE.has(`${service}/${name}`)) continue;
      findings.push(...checkMigrationSafety(name, readFileSync(join(folder, name, 'migration.sql'), 'utf8')));
    }
    expect(findings).toEqual([]);
  });
});

describe("the previous release's schema fits a database migrated by this tree", () => {
  const releases = previousReleases();

  it('compares with at least one earlier revision', () => {
    expect(releases.length).toBeGreaterThan(0);
  });

  describe.each(SERVICES)('%s', (service) => {
    it.each(releases)('$label', async ({ commit }) => {
      expect(await breaksAgainst(commit, service, join(root, 'services', service, 'prisma', 'migrations'))).toEqual([]);
    });
  });
});

describe('the ask_mark change, replayed from git, is refused', () => {
  const migration = 'services/session/prisma/migrations/20261204180000_ask_mark/migration.sql';
  const change = git('log', '--diff-filter=A', '--format=%H', '--', migration);

  it('by the expand/contract check on its text', () => {
    expect(checkMigrationSafety('20261204180000_ask_mark', git('show', `${change}:${migration}`))).toEqual([
      expect.stringContaining('drops a column: sessions.asked_about'),
    ]);
  });

  it("by its parent's schema against the database its migrations make", async () => {
    expect(await breaksAgainst(`${change}~1`, 'session', migrationsAt(change, 'session'))).toEqual([
      'column sessions.asked_about is gone; the previous release reads it',
    ]);
  });

  it("and its parent's own migrations fit its parent (the check is not merely strict)", async () => {
    expect(await breaksAgainst(`${change}~1`, 'session', migrationsAt(`${change}~1`, 'session'))).toEqual([]);
  });
});
