/**
 * Every service keeps the same three rooms (docs/adr/0023-three-rooms.md): src/ holds domain/, app/ and adapters/,
 * with main.ts (the one file that wires them), config.ts and, for the gateway, its operator commands in bin/. What
 * may import what inside them is the relay/layering ESLint rule (layering-rule.test.ts); this is the floor plan.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const services = fileURLToPath(new URL('../../services/', import.meta.url));
const ROOMS = ['adapters', 'app', 'config.ts', 'domain', 'main.ts'];
/** Build outputs (the generated Prisma client) and the gateway's commands sit beside the rooms. */
const BESIDE = new Set(['generated', 'bin']);

describe.each(readdirSync(services).filter((name) => existsSync(`${services}${name}/src/main.ts`)))('services/%s/src', (service) => {
  it('holds the three rooms, main.ts and config.ts, and nothing else', () => {
    const entries = readdirSync(`${services}${service}/src`).filter((name) => !BESIDE.has(name));
    expect(entries.sort()).toEqual(ROOMS);
  });

  it('has one folder per adapter under adapters/, no loose file', () => {
    const loose = readdirSync(`${services}${service}/src/adapters`, { withFileTypes: true }).filter((entry) => !entry.isDirectory());
    expect(loose.map((entry) => entry.name)).toEqual([]);
  });
});
