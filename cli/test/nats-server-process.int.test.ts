import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@relay/testing';
import { findExecutable, startNatsServer } from '../src/nats-server-process.ts';
import { Reporter } from '../src/reporter.ts';

const storeDir = mkdtempSync(join(tmpdir(), 'relay-cli-nats-'));
const reporter = new Reporter({ json: false, color: false, level: 'silent', out: process.stdout, err: process.stderr });

afterAll(() => rmSync(storeDir, { recursive: true, force: true }));

describe('startNatsServer', () => {
  it('runs nats-server with JetStream on loopback, its store in the given folder, until stopped', async () => {
    const binary = findExecutable('nats-server', process.env['PATH']);
    expect(binary).toBeDefined();
    const port = await freePort();
    const nats = await startNatsServer({ binary: binary!, port, storeDir, reporter });
    expect(nats.url).toBe(`nats://127.0.0.1:${port}`);
    expect(readdirSync(storeDir)).toContain('jetstream');
    const exit = await nats.process.stop(5_000);
    expect(exit.signal ?? exit.code).not.toBe('SIGKILL');
  });

  it('fails with the reason when nats-server cannot listen', async () => {
    const port = await freePort();
    const first = await startNatsServer({ binary: findExecutable('nats-server', process.env['PATH'])!, port, storeDir: join(storeDir, 'a'), reporter });
    try {
      await expect(startNatsServer({ binary: findExecutable('nats-server', process.env['PATH'])!, port, storeDir: join(storeDir, 'b'), reporter })).rejects.toThrow(
        /nats-server exited with code 1 before it was ready: Error listening on port.*address already in use/,
      );
    } finally {
      await first.process.stop(5_000);
    }
  });
});

describe('findExecutable', () => {
  it('finds nothing for a name that is not installed', () => {
    expect(findExecutable('no-such-binary-relay', '/usr/bin')).toBeUndefined();
  });
});
