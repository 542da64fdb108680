import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

function importsOf(folder: string): { file: string; specifier: string }[] {
  return readdirSync(src + folder)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) =>
      [...readFileSync(`${src}${folder}/${name}`, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*from\s+'([^']+)'/gm)].map((match) => ({
        file: `${folder}/${name}`,
        specifier: match[1]!,
      })),
    );
}

// The domain/ rule for every service is in test/architecture/layering.test.ts.
describe('layering (STYLE.md)', () => {
  it('adapters do not import each other', () => {
    const crossing = ['grpc', 'store', 'crypto', 'providers'].flatMap((folder) =>
      importsOf(`adapters/${folder}`).filter(({ specifier }) => /^\.\.\/(grpc|store|crypto|providers|tasks|bus|fs)\//.test(specifier)),
    );
    expect(crossing).toEqual([]);
  });
});
