// scripts/copy-runtime-dependencies.mjs, which gives each image its node_modules: what the bundle loads and what
// that needs, found as Node finds it, and nothing else. Run on a made-up install (no network, nothing started).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/copy-runtime-dependencies.mjs', import.meta.url));

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'runtime-deps-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writePackage(dir: string, manifest: Record<string, unknown>): void {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'package.json'), JSON.stringify(manifest));
  writeFileSync(join(root, dir, 'index.js'), '');
}

/** A bundle at services/app/dist/main.js whose metafile says it imports `imports` (each external unless relative). */
function writeBundle(imports: string[]): void {
  mkdirSync(join(root, 'services/app/dist'), { recursive: true });
  const outputs = { 'services/app/dist/main.js': { imports: imports.map((path) => ({ path, kind: 'import-statement', external: !path.startsWith('.') })) } };
  writeFileSync(join(root, 'services/app/dist/meta.json'), JSON.stringify({ inputs: {}, outputs }));
}

function run() {
  const result = spawnSync(process.execPath, [SCRIPT, 'services/app/dist/meta.json', 'out'], { cwd: root, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The package folders under `out`, relative to it. */
function copied(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'package.json') found.push(relative(join(root, 'out'), dirname(path)));
    }
  };
  walk(join(root, 'out'));
  return found.sort();
}

describe('copy-runtime-dependencies', () => {
  it('copies what the bundle imports and what that needs, where Node finds it, and nothing a build alone needs', () => {
    writeBundle(['node:fs', 'path', './chunk-X.js', 'a/sub/path.js', '@s/b', 'd']);
    writePackage('node_modules/a', {
      name: 'a',
      dependencies: { c: '2' },
      optionalDependencies: { 'a-linux': '1', 'a-win32': '1' },
      peerDependencies: { p: '*', q: '*' },
      peerDependenciesMeta: { q: { optional: true } },
    });
    // a's own c (another version than the one hoisted for @s/b).
    writePackage('node_modules/a/node_modules/c', { name: 'c', version: '2.0.0' });
    writePackage('node_modules/a-linux', { name: 'a-linux' });
    writePackage('node_modules/p', { name: 'p' });
    // An optional peer that is installed (as @prisma/client's prisma CLI is, for the build) stays out.
    writePackage('node_modules/q', { name: 'q', dependencies: { typescript: '5' } });
    writePackage('node_modules/typescript', { name: 'typescript' });
    writePackage('node_modules/@s/b', { name: '@s/b', dependencies: { c: '1' } });
    writePackage('node_modules/c', { name: 'c', version: '1.0.0' });
    writePackage('node_modules/unused', { name: 'unused' });
    // Installed beside the workspace, not hoisted: the bundle in its dist/ finds it there.
    writePackage('services/app/node_modules/d', { name: 'd' });

    const { status, stdout } = run();
    expect(status).toBe(0);
    expect(stdout).toContain('7 packages');
    expect(copied()).toEqual([
      'node_modules/@s/b',
      'node_modules/a',
      'node_modules/a-linux',
      'node_modules/a/node_modules/c',
      'node_modules/c',
      'node_modules/p',
      'services/app/node_modules/d',
    ]);
  });

  it("does not copy a package's nested node_modules it does not need", () => {
    writeBundle(['a']);
    writePackage('node_modules/a', { name: 'a' });
    writePackage('node_modules/a/node_modules/stale', { name: 'stale' });
    expect(run().status).toBe(0);
    expect(copied()).toEqual(['node_modules/a']);
  });

  it('fails, naming both, when something needed is not installed', () => {
    writeBundle(['a']);
    writePackage('node_modules/a', { name: 'a', dependencies: { missing: '1' } });
    const { status, stderr } = run();
    expect(status).toBe(1);
    expect(stderr).toBe('copy-runtime-dependencies: missing (needed by a) is not installed\n');
  });

  it('fails when the bundle imports a package that is not installed', () => {
    writeBundle(['gone']);
    const { status, stderr } = run();
    expect(status).toBe(1);
    expect(stderr).toBe('copy-runtime-dependencies: gone (needed by services/app/dist/main.js) is not installed\n');
  });
});
