import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@relay/testing';
import { startEmbeddedPostgres } from '../src/embedded-postgres-server.ts';
import { isProcessAlive } from '../src/process-probe.ts';
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
});
