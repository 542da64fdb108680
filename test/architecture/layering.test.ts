/**
 * The layering rules of STYLE.md, checked over every service's sources: `domain/` (with its subfolders) stays
 * pure, no service imports another, and nobody reaches into a package's `src/`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SERVICES = ['gateway', 'session', 'subscription', 'scheduler', 'question', 'pairing'];

/** What a domain file may not import: adapters' technologies, generated code, I/O. */
const IMPURE = /^(@relay\/(proto|bus|rpc|db|testing)|@prisma\/|pg$|@nats-io\/|@grpc\/|fastify|@modelcontextprotocol\/|node:(fs|child_process|http|https|net\/|dgram|worker_threads))/;

interface Import {
  file: string;
  specifier: string;
  typeOnly: boolean;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

function importsOf(folder: string): Import[] {
  return sourceFiles(folder).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm)].map((match) => ({
      file: file.slice(root.length),
      specifier: match[3]!,
      typeOnly: match[2] !== undefined,
    })),
  );
}

describe('layering (STYLE.md)', () => {
  it.each(SERVICES.filter((service) => service !== 'gateway'))('%s: domain/ imports no adapter, generated code or I/O library', (service) => {
    const domain = `${root}services/${service}/src/domain`;
    const offending = importsOf(domain).filter(({ file, specifier, typeOnly }) => {
      if (specifier.startsWith('.')) {
        const target = new URL(specifier, `file://${root}${file}`).pathname;
        return !target.startsWith(domain);
      }
      return !typeOnly && IMPURE.test(specifier);
    });
    expect(offending).toEqual([]);
  });

  it.each(SERVICES)('%s imports no other service and no package internals', (service) => {
    const own = `${root}services/${service}/`;
    const crossing = importsOf(`${own}src`).filter(({ file, specifier }) =>
      specifier.startsWith('.')
        ? !new URL(specifier, `file://${root}${file}`).pathname.startsWith(own)
        : /^@relay\/[a-z-]+\/src\//.test(specifier) || new RegExp(`^@relay/(${SERVICES.join('|')})\\b`).test(specifier),
    );
    expect(crossing).toEqual([]);
  });
});
