// Benchmark of a command on the command runner, Kubernetes' sandbox (prints figures; it is not a test). From the
// root, as root (the runner's commands side switches to each user's uid):
//   npx tsx bench/runner-command.bench.ts
//
// What one command costs from the session service's side (docs/adr/0035-a-sandbox-user-per-relay-user.md): the
// runner's two sides as processes (services/runner/dist, as in its pod, with a test CA on loopback), and the session
// service's RunnerSandbox in this one. Each round runs, in turn, `sh -c true` started here bare and the same through
// RunnerSandbox.start (a RunCommand call over mutual TLS, passed on to the socket; the folder's and its owners' check,
// the user's home, the switch to their uid, the process group), one at a time, then a CLI's round trip through Exec:
// a line written to `cat`'s stdin until it comes back. It prints the medians, in ms of wall time.
//
//   BENCH_ROUNDS   rounds (default 4)
//   BENCH_CALLS    commands per round and way (default 30)
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import { checkHealth, createClient, grpcAuth } from '@relay/rpc';
import { createTestCa, freePort, startServiceProcess, type CertificateFiles } from '@relay/testing';
import { RunnerSandbox } from '../services/session/src/adapters/runner/runner-sandbox.ts';
import { fixed, inTurn, median } from './support/figures.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const RUNNER_DIR = fileURLToPath(new URL('../services/runner/', import.meta.url));
const ENV = { PATH: '/usr/bin:/bin' };

const tlsOf = (files: CertificateFiles) => ({ GRPC_TLS_CA: files.ca, GRPC_TLS_CERT: files.cert, GRPC_TLS_KEY: files.key });

const ca = createTestCa();
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'relay-runner-bench-')));
chmodSync(dir, 0o755);
const folder = join(dir, 'workspace', 'project');
mkdirSync(folder, { recursive: true });
const socket = join(dir, 'runner.sock');
const [healthPort, port] = [await freePort(), await freePort()];
const common = {
  RUNNER_SOCKET: socket,
  RUNNER_WORKSPACE: join(dir, 'workspace'),
  RUNNER_HOMES: join(dir, 'homes'),
  RUNNER_HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  OTEL_SDK_DISABLED: 'true',
};
const commands = await startServiceProcess({
  serviceDir: RUNNER_DIR,
  env: { ...common, RUNNER_ROLE: 'commands', RUNNER_HEALTH_PORT: String(healthPort) },
  ready: () => checkHealth(`127.0.0.1:${healthPort}`),
});
const session = tlsOf(ca.issue('session', ['session']));
const tls = await startServiceProcess({
  serviceDir: RUNNER_DIR,
  env: { ...common, RUNNER_ROLE: 'tls', RUNNER_PORT: String(port), ...tlsOf(ca.issue('runner', ['runner'])) },
  ready: () => checkHealth(`127.0.0.1:${port}`, '', 2000, grpcAuth('session', session)),
});
const client = createClient(RunnerServiceClient, `127.0.0.1:${port}`, grpcAuth('session', session));
const sandbox = new RunnerSandbox(client, async () => 100_001);

/** `sh -c true` started on this machine, with nothing around it. */
const bare = () =>
  new Promise<void>((resolve, reject) =>
    spawn('sh', ['-c', 'true'], { cwd: folder, env: ENV, stdio: 'ignore' })
      .once('close', () => resolve())
      .once('error', reject),
  );

/** `sh -c true` on the runner, as a background task runs it. */
async function onRunner(): Promise<void> {
  const command = sandbox.start({ sessionId: 'bench', folder, argv: ['sh', '-c', 'true'], env: ENV, onOutput: () => undefined });
  await command.started;
  const ended = await command.ended;
  if (ended.exitCode !== 0) throw new Error(`the command ended ${JSON.stringify(ended)}`);
}

/** Times `run`, `CALLS` times one after another: each in ms. */
async function timed(run: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

/** Lines through one `cat` on the runner (an Exec call): each round trip in ms. */
async function execRoundTrips(): Promise<number[]> {
  const cli = sandbox.spawn({ sessionId: 'bench', folder, argv: ['cat'], env: ENV });
  await new Promise((resolve, reject) => cli.once('spawn', resolve).once('error', reject));
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const back = new Promise((resolve) => cli.stdout.once('data', resolve));
    cli.stdin.write(`line ${i}\n`);
    await back;
    times.push(performance.now() - started);
  }
  cli.stdin.end();
  await new Promise((resolve) => cli.once('close', resolve));
  return times;
}

const ways = { bare, onRunner } as const;
const figures: Record<keyof typeof ways | 'exec', number[]> = { bare: [], onRunner: [], exec: [] };
try {
  // A warm-up: the channel's connection, the user's home.
  await onRunner();
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of inTurn(Object.keys(ways) as (keyof typeof ways)[], round)) figures[way].push(...(await timed(ways[way])));
    figures.exec.push(...(await execRoundTrips()));
  }
  console.log(`${ROUNDS} rounds of ${CALLS} commands, one at a time (median ms of wall time):`);
  console.log(`  sh -c true, bare here                        ${fixed(median(figures.bare))}`);
  console.log(`  sh -c true on the runner (RunCommand, mTLS)  ${fixed(median(figures.onRunner))}`);
  console.log(`  a line through cat on the runner (Exec)      ${fixed(median(figures.exec))}`);
} finally {
  client.close();
  await tls.terminate();
  await commands.terminate();
  ca.remove();
  rmSync(dir, { recursive: true, force: true });
}
