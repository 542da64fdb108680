// The images as a team deploys them (scripts/build-images.sh), built by .ci/run before the suite: each within its
// size budget, the migration image migrating a fresh database, the command runner answering its health check, and
// a whole relay of the six service images answering an agent. RELAY_TEST_IMAGES names them (`relay/*:ci`, the `*`
// standing for each image's name); without it (a machine with no buildah) the file says so and skips. When npm test
// builds them beside the tests (RELAY_BUILD_IMAGES=1), RELAY_IMAGES_BUILT is the file that gets the build's exit status.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHealth } from '@relay/rpc';
import { createTestDatabase, freePort } from '@relay/testing';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { imageMegabytes, launchImage } from '../harness/service-image.ts';
import { until } from '../harness/until.ts';

const pattern = process.env['RELAY_TEST_IMAGES'];
const image = (name: string) => pattern!.replace('*', name);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Each image's size budget in MB (10^6 bytes, as buildah counts): the Node base is some 220 MB of it, and every image
 * but two holds its bundle and the packages it loads, under 300 MB. The agent CLIs are native binaries (Claude Code
 * 356 MB, Codex 411 MB, Copilot 113 MB), which the session service finds and names and, on Kubernetes, the command
 * runner runs as the session's sandbox user: both images carry all three, session-slim none.
 */
const BUDGETS: Record<string, number> = {
  gateway: 300,
  subscription: 300,
  scheduler: 300,
  question: 300,
  pairing: 300,
  migrate: 240,
  'session-slim': 360,
  session: 1300,
  runner: 1300,
};

if (pattern === undefined) console.warn('test/images: RELAY_TEST_IMAGES is not set (no images built on this machine): skipped');

describe.skipIf(pattern === undefined)('the images', () => {
  beforeAll(async () => {
    const statusFile = process.env['RELAY_IMAGES_BUILT'];
    if (statusFile === undefined) return;
    const status = await until(
      'the images built (scripts/build-images.sh beside the tests)',
      async () => (existsSync(statusFile) ? readFileSync(statusFile, 'utf8').trim() : undefined),
      {
        timeoutMs: 30 * 60_000,
      },
    );
    if (status !== '0')
      throw new Error(`scripts/build-images.sh failed (exit ${status}):\n${readFileSync(process.env['RELAY_IMAGES_BUILD_LOG']!, 'utf8').slice(-4000)}`);
  }, 31 * 60_000);

  it('each stays within its size budget', () => {
    const sizes = Object.fromEntries(Object.keys(BUDGETS).map((name) => [name, Math.round(imageMegabytes(image(name)))]));
    console.info(`image sizes (MB): ${JSON.stringify(sizes)}`);
    for (const [name, budget] of Object.entries(BUDGETS)) expect(sizes[name], `${name}: ${sizes[name]} MB, budget ${budget} MB`).toBeLessThanOrEqual(budget);
  });

  it("the migration image applies every service's migrations to a fresh database, and a second run none", async () => {
    const database = await createTestDatabase();
    try {
      const migrations = readdirSync(`${root}/services/session/prisma/migrations`, { withFileTypes: true }).filter((entry) => entry.isDirectory()).length;
      const run = () =>
        runToEnd(image('migrate'), { DATABASE_URL: database.url }, [
          'node',
          '--enable-source-maps',
          'packages/db/dist/relay-migrate.js',
          '/app/migrations/session',
        ]);
      const first = await run();
      expect(first.code, first.output).toBe(0);
      expect(first.output.match(/^applied /gm)?.length).toBe(migrations);
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      try {
        const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL');
        expect(Number(rows[0]!.n)).toBe(migrations);
      } finally {
        await db.end();
      }
      const again = await run();
      expect(again.code).toBe(0);
      expect(again.output.trim()).toBe('no pending migrations');
    } finally {
      await database.drop();
    }
  });

  it('the command runner starts and answers its health check', async () => {
    const healthPort = await freePort();
    // Its commands side starts as root, as its container does (k8s/base/runner/deployment.yaml), to run each user's
    // commands as that user's own uid.
    const env = {
      RUNNER_ROLE: 'commands',
      RUNNER_SOCKET: '/tmp/runner.sock',
      RUNNER_WORKSPACE: '/tmp',
      RUNNER_HEALTH_PORT: String(healthPort),
      RUNNER_HOST: '127.0.0.1',
    };
    const launch = launchImage(image('runner'), env, { user: '0:0' });
    const child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let ended = false;
    const exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (ended = true));
    try {
      const healthy = async () => {
        if (ended) throw new Error(`the runner exited:\n${output}`);
        return (await checkHealth(`127.0.0.1:${healthPort}`)) ? true : undefined;
      };
      await until('the runner answering its health check', healthy, { timeoutMs: 60_000, detail: () => output });
    } finally {
      child.kill('SIGTERM');
      await exited;
      launch.remove();
    }
  });

  // The six service images, once with the session image and once with session-slim in its place.
  describe.each(['session', 'session-slim'])('a relay of the six service images, the session service from %s', (sessionImage) => {
    let relay: Relay;
    beforeAll(async () => {
      relay = await startRelay({ name: 'images', images: (service) => image(service === 'session' ? sessionImage : service) });
    });
    afterAll(async () => {
      await relay?.stop();
    });

    it('answers an agent: a script session calls relay_tool through the gateway image and gets its answer', async () => {
      const { id, messageId } = await scriptSession(relay, 'From the images', 'relay_tool {"action":"list_relays"}');
      const result = await finish(relay, id, messageId);
      expect(result.status, JSON.stringify(result)).toBe('done');
      expect(JSON.parse(result.reply.text)).toMatchObject({ ok: true, summary: 'list_relays: 1 relay, 1 unlocked', self: { name: 'images' } });
    });
  });
});

/** Runs `command` in `name`'s image to its end; its exit code and what it printed. */
async function runToEnd(name: string, env: Record<string, string>, command: string[]): Promise<{ code: number | null; output: string }> {
  const launch = launchImage(name, env, { command });
  const child = spawn(launch.command, launch.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  launch.remove();
  return { code, output };
}
