// The protoc plugin that writes @relay/proto/relay/bus-contracts, run by buf on small modules beside the real
// bus options: what it writes for a stream's messages, and what it refuses.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const plugin = join(root, 'packages/proto/scripts/protoc-gen-bus-contracts.mjs');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs buf generate with only the plugin over the bus options and `events` (package relay.demo.v1). */
function generate(events: string): { status: number | null; stderr: string; output: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'bus-contracts-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'relay/bus/v1'), { recursive: true });
  mkdirSync(join(dir, 'relay/demo/v1'), { recursive: true });
  writeFileSync(join(dir, 'buf.yaml'), 'version: v2\n');
  writeFileSync(join(dir, 'relay/bus/v1/options.proto'), readFileSync(join(root, 'proto/relay/bus/v1/options.proto')));
  writeFileSync(join(dir, 'relay/demo/v1/events.proto'), `syntax = "proto3";\npackage relay.demo.v1;\nimport "relay/bus/v1/options.proto";\n${events}\n`);
  const template = JSON.stringify({ version: 'v2', plugins: [{ local: ['node', plugin], out: 'out', strategy: 'all' }] });
  const run = spawnSync(join(root, 'node_modules/.bin/buf'), ['generate', '--template', template], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr, output: () => readFileSync(join(dir, 'out/relay/bus-contracts.ts'), 'utf8') };
}

describe('protoc-gen-bus-contracts', () => {
  it("writes the stream (its package's subjects) and one contract per subject with its message's codec", () => {
    const run = generate(`
message Rang {
  option (relay.bus.v1.subject) = "relay.demo.v1.rang";
  option (relay.bus.v1.stream) = "DEMO_EVENTS";
  string id = 1;
}
message Ended {
  option (relay.bus.v1.subject) = "relay.demo.v1.finished";
  option (relay.bus.v1.subject) = "relay.demo.v1.failed";
  option (relay.bus.v1.stream) = "DEMO_EVENTS";
  string id = 1;
}
message NotOnTheBus {
  string id = 1;
}`);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const output = run.output();
    expect(output).toContain("import { Ended, Rang } from './demo/v1/events.js';");
    expect(output).toContain("  DEMO_EVENTS: { name: 'DEMO_EVENTS', subjects: ['relay.demo.v1.>'] },");
    expect(output).toContain(
      [
        'export const DemoEvents = {',
        "  RANG: { subject: 'relay.demo.v1.rang', stream: 'DEMO_EVENTS', codec: Rang },",
        "  FINISHED: { subject: 'relay.demo.v1.finished', stream: 'DEMO_EVENTS', codec: Ended },",
        "  FAILED: { subject: 'relay.demo.v1.failed', stream: 'DEMO_EVENTS', codec: Ended },",
        '} as const;',
      ].join('\n'),
    );
    expect(output).not.toContain('NotOnTheBus');
  });

  it.each([
    [
      'a subject without a stream',
      'option (relay.bus.v1.subject) = "relay.demo.v1.rang";',
      'relay.demo.v1.Rang: set both (relay.bus.v1.subject) and (relay.bus.v1.stream)',
    ],
    [
      'a stream without a subject',
      'option (relay.bus.v1.stream) = "DEMO_EVENTS";',
      'relay.demo.v1.Rang: set both (relay.bus.v1.subject) and (relay.bus.v1.stream)',
    ],
    [
      'a subject outside its package',
      'option (relay.bus.v1.subject) = "relay.other.v1.rang";\n  option (relay.bus.v1.stream) = "DEMO_EVENTS";',
      'relay.demo.v1.Rang: subject relay.other.v1.rang is outside its package relay.demo.v1',
    ],
  ])('refuses %s', (_label, options, error) => {
    const run = generate(`message Rang {\n  ${options}\n  string id = 1;\n}`);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(error);
  });

  it('refuses two subjects of one stream that would have the same name', () => {
    const run = generate(`
message Rang {
  option (relay.bus.v1.subject) = "relay.demo.v1.rang";
  option (relay.bus.v1.subject) = "relay.demo.v1.cmd.rang";
  option (relay.bus.v1.stream) = "DEMO_EVENTS";
  string id = 1;
}`);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('stream DEMO_EVENTS: two subjects are both called RANG');
  });
});
