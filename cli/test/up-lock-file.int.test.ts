import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isProcessAlive, waitForExit } from '../src/process-probe.ts';
import { acquireUpLock, RELAY_UP_FRAGMENT, stopLeftovers } from '../src/up-lock-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'relay-cli-lock-'));
const lockPath = join(dir, '.relay', 'up.lock');
const children: ChildProcess[] = [];

/** A process whose command line looks like `fragment`, as `relay up` or one of its children would. */
function fakeProcess(fragment: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', fragment], { stdio: 'ignore' });
  children.push(child);
  return child;
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('acquireUpLock', () => {
  it('creates the lock with our pid, and removes it on release', () => {
    const result = acquireUpLock(lockPath, new Date('2026-11-30T10:00:00Z'));
    expect(result.kind).toBe('acquired');
    expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ pid: process.pid, startedAt: '2026-11-30T10:00:00.000Z', children: [] });
    if (result.kind === 'acquired') {
      result.lockFile.update({ gatewayUrl: 'http://127.0.0.1:7420' });
      result.lockFile.addChild('nats-server', 123);
      expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({ gatewayUrl: 'http://127.0.0.1:7420', children: [{ name: 'nats-server', pid: 123 }] });
      result.lockFile.release();
    }
    expect(existsSync(lockPath)).toBe(false);
  });

  it('reports a relay up that is still running instead of starting a second one', async () => {
    const running = fakeProcess(`/repo/${RELAY_UP_FRAGMENT}`);
    await new Promise((resolve) => running.once('spawn', resolve));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(lockPath, JSON.stringify({ pid: running.pid, startedAt: '', gatewayUrl: 'http://127.0.0.1:7420', children: [] }));
    expect(acquireUpLock(lockPath, new Date())).toEqual({ kind: 'running', message: `relay is already running: http://127.0.0.1:7420 (pid ${running.pid})` });

    running.kill('SIGKILL');
    await waitForExit(running.pid!, 5_000);
    const result = acquireUpLock(lockPath, new Date());
    expect(result).toMatchObject({ kind: 'acquired', stale: { pid: running.pid } });
    if (result.kind === 'acquired') result.lockFile.release();
  });

  it('does not mistake a reused pid (another program) for relay up', async () => {
    const other = fakeProcess('/usr/bin/something-else');
    await new Promise((resolve) => other.once('spawn', resolve));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(lockPath, JSON.stringify({ pid: other.pid, startedAt: '', children: [] }));
    const result = acquireUpLock(lockPath, new Date());
    expect(result.kind).toBe('acquired');
    if (result.kind === 'acquired') result.lockFile.release();
    expect(isProcessAlive(other.pid!)).toBe(true);
  });
});

describe('stopLeftovers', () => {
  it('stops the children a killed relay up left, and nothing else', async () => {
    const service = fakeProcess('dist/main.js');
    const stranger = fakeProcess('unrelated.js');
    await Promise.all([service, stranger].map((child) => new Promise((resolve) => child.once('spawn', resolve))));
    await stopLeftovers(
      {
        pid: 1,
        startedAt: '',
        children: [
          { name: 'session', pid: service.pid! },
          { name: 'gateway', pid: stranger.pid! },
        ],
      },
      () => undefined,
    );
    expect(isProcessAlive(service.pid!)).toBe(false);
    expect(isProcessAlive(stranger.pid!)).toBe(true);
  });
});
