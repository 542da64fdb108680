import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function importsOf(folder: string): { file: string; specifier: string }[] {
  return readdirSync(src + folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) =>
      [...readFileSync(`${src}${folder}/${name}`, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*from\s+'([^']+)'/gm)].map((match) => ({
        file: `${folder}/${name}`,
        specifier: match[1]!,
      })),
    );
}

describe('layering of the turn runtime (STYLE.md)', () => {
  // Within domain/: the folder's own files and, one level up, another feature's (../sessions/session.ts).
  it('domain/turns imports only the domain and @relay/errors', () => {
    const foreign = importsOf('domain/turns').filter(({ specifier }) => !/^\.\.?\/(?:[\w-]+\/)?[\w-]+\.ts$/.test(specifier) && specifier !== '@relay/errors');
    expect(foreign).toEqual([]);
  });

  it('providers reach no store or gRPC adapter: they get what they need in TurnInput', () => {
    const crossing = importsOf('adapters/providers').filter(({ specifier }) => /\/(store|grpc|generated)\//.test(specifier));
    expect(crossing).toEqual([]);
  });

  it('the turn use cases do not import the store or gRPC adapters (main wires them in)', () => {
    const crossing = importsOf('app/turns').filter(({ specifier }) => /\/(adapters|generated)\//.test(specifier));
    expect(crossing).toEqual([]);
  });
});
