// `relay up --replicas session=2,subscription=2`: scale-out on one machine, as a team tries it before a cluster. The
// relay is started by the `relay` command itself (its own NATS and embedded PostgreSQL, in a data folder of this
// test's own), each replica a process on its own port that the others dial through one balanced `ipv4:` target. The
// hand-over a rollout relies on holds: while the session replica running a long turn drains (SIGTERM), a message to
// another session is run at once by the other replica, not after a restart; the drained replica comes back by itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@relay/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserApi } from '../harness/relay.ts';
import { until } from '../harness/until.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'relay-up-replicas-'));
// As root, the embedded PostgreSQL runs as a user of its own, which must reach its folder in here.
chmodSync(dataDir, 0o755);
const GRACE_SECONDS = 90;

let up: ChildProcess;
let output = '';
let gatewayUrl: string;
let userToken: string;
let db: pg.Client;

/** The relay's JSON log lines so far. */
const lines = () =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const detail = () => output.slice(-6000);

/** The processes `relay up` runs now, by name (`session`, `session-2` …), from its lock file. */
function children(): Map<string, number> {
  const lock = JSON.parse(readFileSync(join(dataDir, 'up.lock'), 'utf8')) as { children: { name: string; pid: number }[] };
  return new Map(lock.children.map((child) => [child.name, child.pid]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const api = (method: string, path: string, body?: unknown) => callUserApi(gatewayUrl, userToken, method, path, body);

async function scriptSession(title: string, text: string): Promise<{ id: string; messageId: string }> {
  const created = await api('POST', '/api/v1/sessions', { provider: 'script', title, text });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.session.id, messageId: created.body.message_id };
}

async function turn(messageId: string): Promise<{ status: string; runner_id: string | null }> {
  const { rows } = await db.query<{ status: string; runner_id: string | null }>('SELECT status, runner_id FROM turns WHERE message_id = $1', [messageId]);
  return rows[0]!;
}

beforeAll(async () => {
  up = spawn(process.execPath, [join(root, 'cli/bin/relay.mjs'), 'up', '--json', '--replicas', 'subscription=2,session=2'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      RELAY_DATA_DIR: dataDir,
      RELAY_PORT: String(await freePort()),
      RELAY_NAME: 'replicas',
      RELAY_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  up.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  up.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const ready = await until(
    'relay up is up',
    () => lines().find((line) => line['msg'] === 'relay is up') ?? (up.exitCode !== null ? { failed: true } : undefined),
    {
      timeoutMs: 240_000,
      detail,
    },
  );
  expect(ready, detail()).not.toHaveProperty('failed');
  gatewayUrl = String(ready['gatewayUrl']);
  userToken = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { userToken: string }).userToken;
  const postgres = /Starting PostgreSQL \(embedded\) on 127\.0\.0\.1:(\d+)/.exec(output);
  expect(postgres, detail()).not.toBeNull();
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  db = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${postgres![1]}/relay_session` });
  await db.connect();
}, 300_000);

afterAll(async () => {
  await db?.end();
  if (up?.exitCode === null) {
    const exited = new Promise((resolve) => up.once('exit', resolve));
    up.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    // What did not stop in time: the launcher's process group (this test's own).
    if (up.exitCode === null && up.pid !== undefined) process.kill(-up.pid, 'SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('relay up --replicas subscription=2,session=2', () => {
  it('runs two processes of each, on ports of their own, and says where', () => {
    const running = children();
    const pids = ['session', 'session-2', 'subscription', 'subscription-2', 'scheduler', 'question', 'pairing', 'gateway'].map((name) => running.get(name));
    expect(
      pids.every((pid) => pid !== undefined && alive(pid)),
      JSON.stringify([...running]),
    ).toBe(true);
    expect(new Set(pids).size).toBe(pids.length);
    expect(running.has('scheduler-2')).toBe(false);
    expect(output).toMatch(/Starting the services \(session ×2 on \d+, \d+; subscription ×2 on \d+, \d+\)/);
  });

  it('hands a new turn to the other session replica while the one running a long turn drains, and brings the drained one back', async () => {
    const long = await scriptSession('Long', 'reply working\nwait 600\nreply never');
    await until('the long turn runs', async () => ((await api('GET', `/api/v1/sessions/${long.id}`)).body?.inFlight?.includes('working') ? true : undefined), {
      detail,
    });
    const longRunner = (await turn(long.messageId)).runner_id;
    expect(longRunner).not.toBeNull();

    // SIGTERM each replica in turn: an idle one exits at once (and relay up starts it again); the one running the long
    // turn stays, draining, for the grace.
    let holder: { name: string; pid: number } | undefined;
    for (const name of ['session', 'session-2']) {
      const pid = children().get(name)!;
      process.kill(pid, 'SIGTERM');
      const exited = await until(`${name} exits or drains`, () => (alive(pid) ? undefined : true), { timeoutMs: 10_000 }).catch(() => false);
      if (!exited) {
        holder = { name, pid };
        break;
      }
      await until(`${name} runs again`, () => (children().get(name) !== pid && alive(children().get(name)!) ? true : undefined), { timeoutMs: 60_000, detail });
    }
    expect(holder, 'a session replica drains the long turn').toBeDefined();

    // Another session's message, sent while the holder drains: run now by the other replica.
    const other = await scriptSession('Other', 'reply handed over');
    const ended = await until(
      'the other turn ends',
      async () => {
        const read = await api('GET', `/api/v1/sessions/${other.id}/wait?message_id=${other.messageId}&wait_seconds=5`);
        return ['queued', 'running'].includes(read.body?.status) ? undefined : read.body;
      },
      { timeoutMs: 60_000, detail },
    );
    expect(ended, JSON.stringify(ended)).toMatchObject({ status: 'done', reply: { text: 'handed over' } });
    expect(alive(holder!.pid), 'the draining replica is still there').toBe(true);
    expect(await turn(long.messageId)).toEqual({ status: 'running', runner_id: longRunner });
    expect((await turn(other.messageId)).runner_id).not.toBe(longRunner);

    // Stopping the long turn lets the holder finish draining and exit; relay up starts it again.
    const stopped = await api('POST', `/api/v1/sessions/${long.id}/stop`);
    expect(stopped.status, JSON.stringify(stopped.body)).toBeLessThan(300);
    await until(
      'the drained replica runs again',
      () => {
        const pid = children().get(holder!.name);
        return pid !== undefined && pid !== holder!.pid && alive(pid) && !alive(holder!.pid) ? true : undefined;
      },
      { timeoutMs: 60_000, detail },
    );
    expect(lines().some((line) => String(line['msg']).includes(`the ${holder!.name} service is running again`))).toBe(true);

    // The relay is whole again: a turn in the long session's conversation runs.
    const again = await api('POST', `/api/v1/sessions/${long.id}/messages`, { text: 'reply back' });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    const result = await until(
      'the next turn ends',
      async () => {
        const read = await api('GET', `/api/v1/sessions/${long.id}/wait?message_id=${again.body.message_id}&wait_seconds=5`);
        return ['queued', 'running'].includes(read.body?.status) ? undefined : read.body;
      },
      { timeoutMs: 60_000, detail },
    );
    expect(result).toMatchObject({ status: 'done', reply: { text: 'back' } });
  });
});
