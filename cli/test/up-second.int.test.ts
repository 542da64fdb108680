// A second `relay up` while one runs starts nothing, says where the first one is, and exits non-zero.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runUp } from '../src/commands/up.ts';
import { relayPaths } from '../src/relay-paths.ts';
import { RELAY_UP_FRAGMENT } from '../src/up-lock-file.ts';

const root = mkdtempSync(join(tmpdir(), 'relay-cli-second-up-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks).toString('utf8');
}

describe('relay up, twice', () => {
  it('exits 1 with the running one on stderr, and leaves its lock alone', async () => {
    // A process whose command line looks like a running `relay up`.
    const first = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', `/repo/${RELAY_UP_FRAGMENT}`], { stdio: 'ignore' });
    children.push(first);
    const paths = relayPaths(root);
    mkdirSync(paths.dataDir, { recursive: true });
    const lock = JSON.stringify({ pid: first.pid, startedAt: '2026-11-30T10:00:00.000Z', gatewayUrl: 'http://127.0.0.1:7420', children: [] });
    writeFileSync(paths.lockFile, lock);

    const out = new PassThrough();
    const err = new PassThrough();
    const [stdout, stderr] = [collect(out), collect(err)];
    const code = await runUp(
      { json: false },
      { env: {}, out: out as unknown as NodeJS.WriteStream, err: err as unknown as NodeJS.WriteStream, hasParentChannel: false, paths },
    );

    expect(code).toBe(1);
    expect(stderr()).toBe(`relay: relay is already running: http://127.0.0.1:7420 (pid ${first.pid}); this relay up starts nothing\n`);
    expect(stdout()).toBe('');
    expect(readFileSync(paths.lockFile, 'utf8')).toBe(lock);
  });
});
