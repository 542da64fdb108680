// Commands on Kubernetes: the command runner (services/runner, its commands and tls sides as real processes, on a
// unix socket and a loopback TLS port with a test CA) and the session service's RunnerSandbox against it.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import { AppError } from '@relay/errors';
import { callStream, checkHealth, createClient, grpcAuth } from '@relay/rpc';
import { createTestCa, freePort, startServiceProcess, type CertificateFiles, type ServiceProcess, type TestCa } from '@relay/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunnerSandbox } from '../../src/adapters/runner/runner-sandbox.ts';

const RUNNER_DIR = fileURLToPath(new URL('../../../runner/', import.meta.url));

let ca: TestCa;
let dir: string;
let workspace: string;
let project: string;
let outside: string;
let port: number;
let commandsSide: ServiceProcess;
let tlsSide: ServiceProcess;
const clients: RunnerServiceClient[] = [];

const tlsOf = (files: CertificateFiles) => ({ GRPC_TLS_CA: files.ca, GRPC_TLS_CERT: files.cert, GRPC_TLS_KEY: files.key });
function clientAs(service: 'session' | 'gateway', files: CertificateFiles): RunnerServiceClient {
  const client = createClient(RunnerServiceClient, `127.0.0.1:${port}`, grpcAuth(service, tlsOf(files)));
  clients.push(client);
  return client;
}

/** Runs a command to its end through the sandbox: its output and how it ended. */
async function run(sandbox: RunnerSandbox, folder: string, argv: string[], env: Record<string, string> = { PATH: '/usr/bin:/bin' }) {
  const chunks: Buffer[] = [];
  const command = sandbox.start({ folder, argv, env, onOutput: (chunk) => chunks.push(Buffer.from(chunk)) });
  await command.started;
  const ended = await command.ended;
  return { output: Buffer.concat(chunks).toString('utf8'), ended };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  ca = createTestCa();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'relay-runner-test-')));
  workspace = join(dir, 'workspace');
  project = join(workspace, 'alice', 'project');
  outside = join(dir, 'outside');
  mkdirSync(project, { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(workspace, 'alice', 'leads-out'));
  const socket = join(dir, 'socket', 'runner.sock');
  mkdirSync(join(dir, 'socket'));
  const healthPort = await freePort();
  port = await freePort();
  const common = { RUNNER_SOCKET: socket, RUNNER_WORKSPACE: workspace, RUNNER_HOST: '127.0.0.1', LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true' };
  commandsSide = await startServiceProcess({
    serviceDir: RUNNER_DIR,
    env: { ...common, RUNNER_ROLE: 'commands', RUNNER_HEALTH_PORT: String(healthPort) },
    ready: () => checkHealth(`127.0.0.1:${healthPort}`),
  });
  const session = ca.issue('session', ['session', 'session.relay.svc']);
  tlsSide = await startServiceProcess({
    serviceDir: RUNNER_DIR,
    env: { ...common, RUNNER_ROLE: 'tls', RUNNER_PORT: String(port), ...tlsOf(ca.issue('runner', ['runner', 'runner.relay.svc'])) },
    ready: () => checkHealth(`127.0.0.1:${port}`, '', 2000, grpcAuth('session', tlsOf(session))),
  });
});

afterAll(async () => {
  for (const client of clients) client.close();
  await tlsSide?.terminate();
  await commandsSide?.terminate();
  ca?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the command runner, through the session service\'s RunnerSandbox over mutual TLS', () => {
  it('runs a command in a folder under the workspace with exactly the environment given, and streams its output back', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])));
    const { output, ended } = await run(sandbox, project, ['sh', '-c', 'pwd; echo "to stderr" >&2; echo "FOO=$FOO HOME=${HOME-unset}"; touch made-here; exit 3'], {
      PATH: '/usr/bin:/bin',
      FOO: 'bar',
    });
    expect(output).toContain(project);
    expect(output).toContain('to stderr');
    expect(output).toContain('FOO=bar HOME=unset');
    expect(ended).toEqual({ exitCode: 3, signal: null });
    expect(existsSync(join(project, 'made-here'))).toBe(true);
    expect(sandbox.where(project)).toMatch(/^command runner/);
  });

  it('gives output as it comes, before the command ends', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])));
    const chunks: string[] = [];
    const command = sandbox.start({ folder: project, argv: ['sh', '-c', 'echo first; sleep 30; echo never'], env: { PATH: '/usr/bin:/bin' }, onOutput: (chunk) => chunks.push(Buffer.from(chunk).toString()) });
    await command.started;
    await until(() => chunks.join('').includes('first'));
    command.stop();
    expect(await command.ended).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(chunks.join('')).not.toContain('never');
  });

  it('refuses a folder outside the workspace, by its real path (a link that leads out too), and an empty argv', async () => {
    const client = clientAs('session', ca.issue('session', ['session']));
    const sandbox = new RunnerSandbox(client);
    for (const folder of [outside, join(workspace, 'alice', 'leads-out'), join(workspace, 'alice', 'project', '..', '..', '..', 'outside'), join(workspace, 'missing')]) {
      const command = sandbox.start({ folder, argv: ['sh', '-c', 'touch escaped'], env: {}, onOutput: () => undefined });
      await expect(command.started, folder).rejects.toThrow(/refused it/);
      expect((await command.ended).lost).toBeDefined();
    }
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    const refused = await callStream(client, 'runCommand', { folder: outside, argv: ['true'], env: {} }).next().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    const empty = await callStream(client, 'runCommand', { folder: project, argv: [], env: {} }).next().catch((error: unknown) => error);
    expect((empty as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('cancelling the call stops the command\'s whole process group', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])));
    const chunks: string[] = [];
    const script = 'sleep 300 & echo $! > child.pid; (sleep 300; echo grandchild) & echo $! > sub.pid; echo $$ > leader.pid; echo ready; wait';
    const command = sandbox.start({ folder: project, argv: ['sh', '-c', script], env: { PATH: '/usr/bin:/bin' }, onOutput: (chunk) => chunks.push(Buffer.from(chunk).toString()) });
    await command.started;
    await until(() => chunks.join('').includes('ready'));
    const pids = ['leader.pid', 'child.pid', 'sub.pid'].map((file) => Number(readFileSync(join(project, file), 'utf8').trim()));
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(true);
    command.stop();
    await command.ended;
    await until(() => pids.every((pid) => !alive(pid)));
    expect(chunks.join('')).not.toContain('grandchild');
  });

  it('a session replica that dies mid-command (its connection dropped) stops the command\'s process group', async () => {
    const files = ca.issue('session', ['session']);
    // A session service of its own, as a process: SIGKILLed, it cancels nothing; the runner sees the connection drop.
    const replica = [
      `import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';`,
      `import { createClient, grpcAuth } from '@relay/rpc';`,
      `import { RunnerSandbox } from ${JSON.stringify(fileURLToPath(new URL('../../src/adapters/runner/runner-sandbox.ts', import.meta.url)))};`,
      `const env = JSON.parse(process.env.REPLICA);`,
      `const sandbox = new RunnerSandbox(createClient(RunnerServiceClient, env.address, grpcAuth('session', env.tls)));`,
      `sandbox.start({ folder: env.folder, argv: ['sh', '-c', env.script], env: { PATH: '/usr/bin:/bin' }, onOutput: (chunk) => process.stdout.write(chunk) });`,
    ].join('\n');
    const script = 'sleep 300 & echo $! > dropped-child.pid; echo $$ > dropped-leader.pid; echo ready; wait';
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', replica], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, REPLICA: JSON.stringify({ address: `127.0.0.1:${port}`, tls: tlsOf(files), folder: project, script }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await until(() => output.includes('ready'), 30_000);
      const pids = ['dropped-leader.pid', 'dropped-child.pid'].map((file) => Number(readFileSync(join(project, file), 'utf8').trim()));
      for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(true);
      child.kill('SIGKILL');
      await until(() => pids.every((pid) => !alive(pid)));
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('ends what a command left running in its group once the command itself exits', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])));
    const { ended } = await run(sandbox, project, ['sh', '-c', 'sleep 300 > /dev/null 2>&1 & echo $! > left.pid; exit 0']);
    expect(ended.exitCode).toBe(0);
    const left = Number(readFileSync(join(project, 'left.pid'), 'utf8').trim());
    await until(() => !alive(left));
  });

  it('refuses a caller whose certificate does not name session, and one with no client certificate', async () => {
    const gateway = clientAs('gateway', ca.issue('gateway', ['gateway']));
    const forbidden = await callStream(gateway, 'runCommand', { folder: project, argv: ['sh', '-c', 'touch by-gateway'], env: {} }).next().catch((error: unknown) => error);
    expect((forbidden as AppError).code).toBe('REMOTE_RELAY_FORBIDDEN');
    const sandbox = new RunnerSandbox(gateway);
    await expect(sandbox.start({ folder: project, argv: ['true'], env: {}, onOutput: () => undefined }).started).rejects.toThrow(/refused it/);

    const { credentials } = await import('@grpc/grpc-js');
    const anonymous = new RunnerServiceClient(`127.0.0.1:${port}`, credentials.createSsl(readFileSync(ca.issue('nobody', ['nobody']).ca)));
    clients.push(anonymous);
    const unauthenticated = await callStream(anonymous, 'runCommand', { folder: project, argv: ['sh', '-c', 'touch by-nobody'], env: {} }).next().catch((error: unknown) => error);
    expect((unauthenticated as AppError).code).toBe('REMOTE_RELAY_AUTH');
    expect(existsSync(join(project, 'by-gateway'))).toBe(false);
    expect(existsSync(join(project, 'by-nobody'))).toBe(false);
  });
});
