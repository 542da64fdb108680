/**
 * The NATS permissions every nats-server of the relay is given (`relay up`, the tests, Kubernetes) come from
 * RELAY_BUS_ROLES in @relay/config. A service that declares a stream or a durable consumer the table does not
 * list would be refused by nats-server at start; this keeps the table and the services' bus code in step.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RELAY_BUS_ROLES } from '@relay/config';
import { BusStreams } from '@relay/proto/relay/bus-contracts';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = `${folder}/${name}`;
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The string literals a service's sources give `durable:`, and the streams it declares: its main.ts names one of the
 * generated bus contracts' streams to startService (`stream: BusStreams.NAME`, from the protos' stream options), or
 * an `ensureStream` takes one.
 */
function declared(service: string): { durables: string[]; streams: string[] } {
  const texts = sourceFiles(`${root}services/${service}/src`).map((file) => readFileSync(file, 'utf8'));
  const all = (pattern: RegExp) => [...new Set(texts.flatMap((text) => [...text.matchAll(pattern)].map((match) => match[1]!)))].sort();
  return { durables: all(/durable: '([\w-]+)'/g), streams: all(/(?:ensureStream\(\w+, \{ \.\.\.|\bstream: )BusStreams\.([A-Z_]+)\b/g) };
}

describe('RELAY_BUS_ROLES (the NATS users and their permissions)', () => {
  it.each(RELAY_BUS_ROLES.map((role) => [role.service, role] as const))('%s: lists exactly the streams and durables its bus code declares', (service, role) => {
    const { durables, streams } = declared(service);
    expect(role.consumers.map((consumer) => consumer.durable).sort()).toEqual(durables);
    expect(role.streams.map((stream) => stream.name).sort()).toEqual(streams);
  });

  it.each(RELAY_BUS_ROLES.map((role) => [role.service, role] as const))(
    '%s: may publish exactly the subjects of the streams the protos give it',
    (_service, role) => {
      for (const stream of role.streams) expect(stream).toEqual(BusStreams[stream.name as keyof typeof BusStreams]);
    },
  );

  it('gives the gateway no NATS user: it does not use the bus', () => {
    expect(declared('gateway')).toEqual({ durables: [], streams: [] });
    expect(RELAY_BUS_ROLES.map((role) => role.service)).not.toContain('gateway');
  });
});
