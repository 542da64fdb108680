// The images as a team deploys them (scripts/build-images.sh), built by .ci/run before the suite: each within its
// size budget, the migration image migrating a fresh database, the command runner answering its health check and
// finding the agents' CLIs it carries, and a whole relay of the six service images answering an agent. RELAY_TEST_IMAGES names them (`relay/*:ci`, the `*`
// standing for each image's name); without it (a machine with no buildah) the file says so and skips. When npm test
// builds them beside the tests (RELAY_BUILD_IMAGES=1), RELAY_IMAGES_BUILT is the file that gets the build's exit status.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHealth, createClient, grpcAuth } from '@relay/rpc';
import { createTestDatabase, freePort } from '@relay/testing';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish, scriptSession } from '../harness/script-turns.ts';
import { imageMegabytes, launchImage } from '../harness/service-image.ts';
import { until } from '../harness/until.ts';
import { RunnerSandbox } from '../../services/session/src/adapters/runner/runner-sandbox.ts';
import { claudeDefinition } from '../../services/session/src/adapters/providers/claude/claude-definition.ts';
import { codexDefinition } from '../../services/session/src/adapters/providers/codex/codex-definition.ts';
import { copilotDefinition } from '../../services/session/src/adapters/providers/copilot/copilot-definition.ts';

const pattern = process.env['RELAY_TEST_IMAGES'];
const image = (name: string) => pattern!.replace('*', name);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Each image's size budget in MB (10^6 bytes, as buildah counts): the Node base is some 220 MB of it, and every image
 * holds its bundle and the packages it loads, the session service's with its providers' SDKs. The agent CLIs are
 * native binaries (Claude Code 356 MB, Codex 411 MB, Copilot 113 MB) that only the command runner's image carries:
 * on Kubernetes it runs them, as the session's sandbox user, and says where they are.
 */
const BUDGETS: Record<string, number> = {
  gateway: 300,
  subscription: 300,
  scheduler: 300,
  question: 300,
  pairing: 300,
  migrate: 240,
  session: 360,
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

  it("the command runner starts, answers its health check and finds the agents' CLIs in its image", async () => {
    const healthPort = await freePort();
    // Its socket in a folder shared with this machine, to ask it over the socket as its tls side does.
    const socketFolder = mkdtempSync(join(tmpdir(), 'relay-runner-image-'));
    // Its commands side starts as root, as its container does (k8s/base/runner/deployment.yaml), to run each user's
    // commands as that user's own uid.
    const env = {
      RUNNER_ROLE: 'commands',
      RUNNER_SOCKET: join(socketFolder, 'runner.sock'),
      RUNNER_WORKSPACE: '/tmp',
      RUNNER_HEALTH_PORT: String(healthPort),
      RUNNER_HOST: '127.0.0.1',
    };
    const launch = launchImage(image('runner'), env, { user: '0:0', shared: [socketFolder] });
    // The socket takes calls as they are (its tls side checks the caller): the token goes unread.
    const client = createClient(RunnerServiceClient, `unix:${env.RUNNER_SOCKET}`, grpcAuth('session', { RELAY_SERVICE_TOKEN: 'unread' }));
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
      // What the session service asks at its start: each provider's CLI, found in the runner's image (its own paths).
      const sandbox = new RunnerSandbox(client, async () => Promise.reject(new Error('no command runs here')));
      const config = {} as never;
      const programs = [claudeDefinition, codexDefinition, copilotDefinition].flatMap((definition) => Object.values(definition.clis!(config, {} as never)));
      const found = await sandbox.locate(programs);
      expect(found.map((location) => location?.path)).toEqual([
        expect.stringMatching(/^\/app\/node_modules\/@anthropic-ai\/claude-agent-sdk-[^/]+\/claude$/),
        expect.stringMatching(/^\/app\/node_modules\/@openai\/codex-[^/]+\/vendor\/[^/]+\/bin\/codex$/),
        expect.stringMatching(/^\/app\/node_modules\/@github\/copilot-sdk-[^/]+\/prebuilds\/[^/]+\/copilot-runtime$/),
      ]);
    } finally {
      client.close();
      child.kill('SIGTERM');
      await exited;
      launch.remove();
      rmSync(socketFolder, { recursive: true, force: true });
    }
  });

  // The six service images, the session service's without any agent CLI.
  describe('a relay of the six service images', () => {
    let relay: Relay;
    beforeAll(async () => {
      relay = await startRelay({ name: 'images', images: image });
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
