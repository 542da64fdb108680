// The Node versions the relay supports, said once and kept true (issue 40, item 6): package.json's engines and the
// README name the same range; every locked dependency that declares it needs a newer Node than 20 is named in the
// README (so a new one is looked at, not shrugged off as one more warning); and every dependency with an install
// script is decided in allowScripts, so npm 11 has nothing to ask about when `npm run up` installs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string }; allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; hasInstallScript?: boolean; link?: boolean }>;
};
const readme = readFileSync(`${root}README.md`, 'utf8');

/** The package name of a lock entry's path (`node_modules/a/node_modules/@b/c` → `@b/c`). */
function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/**
 * Whether an engines range lets Node 20 in, read as npm's ranges are written in the lock: alternatives joined by
 * `||`, each a list of comparators whose first bound decides (`>= 22.x`, `^20.19.0`, `>=18`, `*`).
 */
function allowsNode20(range: string): boolean {
  return range.split('||').some((alternative) => {
    const match = /^\s*(>=|>|\^|~|=|<=|<)?\s*v?(\d+|\*|x)?/.exec(alternative);
    const [, op = '=', major] = match ?? [];
    if (major === undefined || major === '*' || major === 'x') return true;
    const wanted = Number(major);
    if (op === '>=' || op === '>') return wanted <= 20;
    if (op === '<' || op === '<=') return wanted > 20 || (op === '<=' && wanted === 20);
    return wanted === 20;
  });
}

describe('the Node versions', () => {
  it('reads the ranges the lock holds', () => {
    expect(allowsNode20('>= 22.x')).toBe(false);
    expect(allowsNode20('>=22.0.0')).toBe(false);
    expect(allowsNode20('^20.19.0 || ^22.12.0 || >=24.0.0')).toBe(true);
    expect(allowsNode20('>=18')).toBe(true);
    expect(allowsNode20('*')).toBe(true);
  });

  it('are stated in package.json and in the README alike, 20 and the images’ 24 among them', () => {
    expect(allowsNode20(manifest.engines.node)).toBe(true);
    expect(manifest.engines.node).toMatch(/>=24|\^24/);
    expect(readme).toContain('**Node.js**: 20.19 or later on the 20 line, 22.12 or later, or 24');
  });

  it('names in the README every dependency that declares it needs a Node newer than 20', () => {
    const newer = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && typeof entry.engines === 'object' && !Array.isArray(entry.engines) && entry.engines.node !== undefined)
      .filter(([, entry]) => !allowsNode20((entry.engines as { node: string }).node))
      .map(([path]) => nameOf(path));
    expect(newer.length).toBeGreaterThan(0);
    for (const name of new Set(newer)) expect(readme, `${name} declares Node 22 or newer: name it in the README`).toContain(`\`${name}\``);
  });

  it('decides every dependency install script in allowScripts, so npm install has none to warn about', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path.includes('node_modules/') && entry.hasInstallScript === true && entry.link !== true)
      .map(([path]) => nameOf(path));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const name of withScripts) expect(Object.keys(manifest.allowScripts ?? {}), `${name} runs an install script`).toContain(name);
  });
});
