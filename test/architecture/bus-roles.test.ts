/**
 * The NATS permissions every nats-server of the relay is given (`relay up`, the tests, Kubernetes) come from
 * RELAY_BUS_ROLES in @relay/config. A service that declares a stream or a durable consumer the table does not
 * list would be refused by nats-server at start; this keeps the table and the services' bus code in step.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RELAY_BUS_ROLES } from '@relay/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The string literals a service's sources give `durable:` and a stream's `name:` (a `…_STREAM` constant). */
function declared(service: string): { durables: string[]; streams: string[] } {
  const texts = sourceFiles(`${root}services/${service}/src`).map((file) => readFileSync(file, 'utf8'));
  const all = (pattern: RegExp) => [...new Set(texts.flatMap((text) => [...text.matchAll(pattern)].map((match) => match[1]!)))].sort();
  return { durables: all(/durable: '([\w-]+)'/g), streams: all(/_STREAM = \{ name: '([A-Z_]+)'/g) };
}

describe('RELAY_BUS_ROLES (the NATS users and their permissions)', () => {
  it.each(RELAY_BUS_ROLES.map((role) => [role.service, role] as const))('%s: lists exactly the streams and durables its bus code declares', (service, role) => {
    const { durables, streams } = declared(service);
    expect(role.consumers.map((consumer) => consumer.durable).sort()).toEqual(durables);
    expect(role.streams.map((stream) => stream.name).sort()).toEqual(streams);
  });

  it('gives the gateway no NATS user: it does not use the bus', () => {
    expect(declared('gateway')).toEqual({ durables: [], streams: [] });
    expect(RELAY_BUS_ROLES.map((role) => role.service)).not.toContain('gateway');
  });
});
