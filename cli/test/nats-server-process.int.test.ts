import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { natsInboxPrefix, natsUsers, RELAY_BUS_ROLES } from '@relay/config';
import { freePort } from '@relay/testing';
import { findExecutable, startNatsServer, writeNatsConfig } from '../src/nats-server-process.ts';
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

  it('with the relay’s config, lets in only the services’ users, each on its own subjects; the file is the owner’s alone', async () => {
    const configFile = join(storeDir, 'conf', 'nats.conf');
    writeNatsConfig(
      configFile,
      natsUsers(RELAY_BUS_ROLES, (service) => ({ value: `pw-${service}` })),
    );
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const port = await freePort();
    const nats = await startNatsServer({
      binary: findExecutable('nats-server', process.env['PATH'])!,
      port,
      storeDir: join(storeDir, 'auth'),
      configFile,
      reporter,
    });
    try {
      await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
      await expect(connect({ servers: nats.url, reconnect: false, user: 'scheduler', pass: 'pw-session' })).rejects.toThrow(/Authorization Violation/i);
      const scheduler = await connect({ servers: nats.url, user: 'scheduler', pass: 'pw-scheduler', inboxPrefix: natsInboxPrefix('scheduler') });
      try {
        await expect(scheduler.request('relay.session.v1.steer', '{}', { timeout: 1000 })).rejects.toThrow(/Permissions Violation for Publish/i);
      } finally {
        await scheduler.close();
      }
    } finally {
      await nats.process.stop(5_000);
    }
  });

  it('fails with the reason when nats-server cannot listen', async () => {
    const port = await freePort();
    const first = await startNatsServer({ binary: findExecutable('nats-server', process.env['PATH'])!, port, storeDir: join(storeDir, 'a'), reporter });
    try {
      await expect(
        startNatsServer({ binary: findExecutable('nats-server', process.env['PATH'])!, port, storeDir: join(storeDir, 'b'), reporter }),
      ).rejects.toThrow(/nats-server exited with code 1 before it was ready: Error listening on port.*address already in use/);
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
