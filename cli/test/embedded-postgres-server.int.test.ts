import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '@relay/testing';
import { startEmbeddedPostgres } from '../src/embedded-postgres-server.ts';
import { isProcessAlive, waitForExit } from '../src/process-probe.ts';
import { Reporter } from '../src/reporter.ts';

const root = mkdtempSync(join(tmpdir(), 'relay-cli-pg-'));
// As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data folder.
chmodSync(root, 0o755);
const dataDir = join(root, 'pg');
const passwordFile = join(root, 'pg-password');
const reporter = new Reporter({ json: false, color: false, level: 'silent', out: process.stdout, err: process.stderr });
const isRoot = process.getuid?.() === 0;

async function selectOne(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one;
  } finally {
    await client.end();
  }
}

function postmasterPid(): number {
  return Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!, 10);
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('startEmbeddedPostgres', () => {
  it('initialises a data folder, serves on loopback and stops', async () => {
    const server = await startEmbeddedPostgres({ dataDir, passwordFile, port: await freePort(), isRoot, reporter });
    expect(await selectOne(server.serverUrl)).toBe(1);
    await server.stop();
    expect(() => readFileSync(join(dataDir, 'postmaster.pid'))).toThrow();
  });

  it('deletes a postmaster.pid whose process is gone', async () => {
    const gone = spawnSync('true').pid!;
    writeFileSync(join(dataDir, 'postmaster.pid'), `${gone}\n${dataDir}\n`);
    const server = await startEmbeddedPostgres({ dataDir, passwordFile, port: await freePort(), isRoot, reporter });
    expect(await selectOne(server.serverUrl)).toBe(1);
    await server.stop();
  });

  it('stops a postmaster left running by a killed relay up, then starts its own', async () => {
    const port = await freePort();
    const fixture = fileURLToPath(new URL('./fixtures/abandon-postgres.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir, passwordFile, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    expect(output.join('')).toContain('ready');
    const orphan = postmasterPid();
    expect(isProcessAlive(orphan)).toBe(true);

    const server = await startEmbeddedPostgres({ dataDir, passwordFile, port: await freePort(), isRoot, reporter });
    expect(isProcessAlive(orphan)).toBe(false);
    expect(await selectOne(server.serverUrl)).toBe(1);
    await server.stop();
  });

  // Issue 39, item 6: Ctrl-C hung at "Stopping PostgreSQL" after the server was restarted by hand.
  it('stops, without hanging, a PostgreSQL restarted by hand after ours exited', async () => {
    const port = await freePort();
    const server = await startEmbeddedPostgres({ dataDir, passwordFile, port, isRoot, reporter });
    const ours = postmasterPid();
    // The server binary embedded-postgres runs, and the user that owns the data folder (postgres, when we are root).
    const binary = readlinkSync(`/proc/${ours}/exe`);
    const owner = statSync(dataDir);
    process.kill(ours, 'SIGINT');
    expect(await waitForExit(ours, 30_000)).toBe(true);

    // Started by hand on the same folder and port, as `pg_ctl restart` would leave it (not a child of ours).
    const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
    const byHand = spawn(binary, args, { stdio: 'ignore', detached: true, ...(isRoot ? { uid: owner.uid, gid: owner.gid } : {}) });
    byHand.unref();
    await vi.waitFor(async () => expect(await selectOne(server.serverUrl)).toBe(1), { timeout: 30_000, interval: 200 });
    const restarted = postmasterPid();
    expect(restarted).not.toBe(ours);

    try {
      const stopped = await Promise.race([server.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 40_000))]);
      expect(stopped).toBe('stopped');
      expect(isProcessAlive(restarted)).toBe(false);
    } finally {
      // A failed stop leaves no server behind.
      if (isProcessAlive(restarted)) process.kill(restarted, 'SIGQUIT');
    }
  }, 120_000);
});
