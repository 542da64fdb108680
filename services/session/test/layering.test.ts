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

describe('layering (STYLE.md)', () => {
  it('domain/ imports only itself and @relay/errors: no I/O, Prisma, proto or adapters', () => {
    const foreign = importsOf('domain').filter(({ specifier }) => !specifier.startsWith('./') && specifier !== '@relay/errors');
    expect(foreign).toEqual([]);
  });

  it('adapters do not import each other', () => {
    const crossing = ['grpc', 'store', 'crypto', 'catalogue'].flatMap((folder) =>
      importsOf(folder).filter(({ specifier }) => /^\.\.\/(grpc|store|crypto|catalogue)\//.test(specifier)),
    );
    expect(crossing).toEqual([]);
  });
});
