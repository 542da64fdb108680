// Commands and CLIs on Kubernetes: the command runner (services/runner, its commands and tls sides as real processes,
// on a unix socket and a loopback TLS port with a test CA) and the session service's RunnerSandbox against it. The
// commands side runs each user's commands as that user's own uid, so it runs as root here, as in its pod.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';
import { AppError } from '@relay/errors';
import { callStream, callUnary, checkHealth, createClient, grpcAuth } from '@relay/rpc';
import { createTestCa, createTestDatabase, freePort, startServiceProcess, type CertificateFiles, type ServiceProcess, type TestCa } from '@relay/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { ManualClock } from '@relay/clock';
import { createLogger } from '@relay/telemetry';
import { RunnerSandbox } from '../../src/adapters/runner/runner-sandbox.ts';
import { prismaSandboxUids } from '../../src/adapters/store/prisma-sandbox-users.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { ClaudeProvider } from '../../src/adapters/providers/claude/claude-provider.ts';
import { claudeExecutable, claudeProgram } from '../../src/adapters/providers/claude/claude-executable.ts';
import { CopilotProvider } from '../../src/adapters/providers/copilot/copilot-provider.ts';
import { copilotProgram, copilotRuntime } from '../../src/adapters/providers/copilot/copilot-definition.ts';
import { configuredProviders } from '../../src/adapters/providers/configured-providers.ts';
import type { ProviderPorts } from '../../src/adapters/providers/define-provider.ts';
import { loadConfig } from '../../src/config.ts';
import { chunk, DONE, startFakeOpenAiApi, usageChunk } from '../../../../test/harness/fake-openai-api.ts';

const RUNNER_DIR = fileURLToPath(new URL('../../../runner/', import.meta.url));
/** The session service's group (RUNNER_SESSION_GID): a taken folder is its user's and this group's. */
const SESSION_GID = 4242;
/** Two relay users' sessions and their sandbox users (users.sandbox_uid). */
const UIDS: Record<string, number> = { 'alice-session': 100_001, 'bob-session': 100_002 };
const uids = async (sessionId: string) => UIDS[sessionId] ?? Promise.reject(new Error(`no session ${sessionId}`));

let ca: TestCa;
let dir: string;
let workspace: string;
let project: string;
let bobProject: string;
let homes: string;
let outside: string;
let port: number;
let commandsSide: ServiceProcess;
let tlsSide: ServiceProcess;
/** How a tls side is started (a second one, late, in a test). */
let startTlsSide: (port: number) => Promise<ServiceProcess>;
const clients: RunnerServiceClient[] = [];

const tlsOf = (files: CertificateFiles) => ({ GRPC_TLS_CA: files.ca, GRPC_TLS_CERT: files.cert, GRPC_TLS_KEY: files.key });
function clientAs(service: 'session' | 'gateway', files: CertificateFiles): RunnerServiceClient {
  const client = createClient(RunnerServiceClient, `127.0.0.1:${port}`, grpcAuth(service, tlsOf(files)));
  clients.push(client);
  return client;
}

/** Runs a command to its end through the sandbox: its output and how it ended. */
async function run(
  sandbox: RunnerSandbox,
  folder: string,
  argv: string[],
  env: Record<string, string> = { PATH: '/usr/bin:/bin' },
  sessionId = 'alice-session',
) {
  const chunks: Buffer[] = [];
  const command = sandbox.start({ sessionId, folder, argv, env, onOutput: (chunk) => chunks.push(Buffer.from(chunk)) });
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
  // The way to the workspace is open to every user, as a pod's /workspace is; the folders in it are not.
  chmodSync(dir, 0o755);
  workspace = join(dir, 'workspace');
  project = join(workspace, 'alice', 'project');
  bobProject = join(workspace, 'bob', 'project');
  homes = join(dir, 'homes');
  outside = join(dir, 'outside');
  mkdirSync(project, { recursive: true });
  mkdirSync(bobProject, { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(workspace, 'alice', 'leads-out'));
  const socket = join(dir, 'socket', 'runner.sock');
  mkdirSync(join(dir, 'socket'));
  const healthPort = await freePort();
  port = await freePort();
  const common = { RUNNER_SOCKET: socket, RUNNER_WORKSPACE: workspace, RUNNER_HOST: '127.0.0.1', LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true' };
  const users = { RUNNER_SESSION_GID: String(SESSION_GID), RUNNER_HOMES: homes };
  commandsSide = await startServiceProcess({
    serviceDir: RUNNER_DIR,
    env: { ...common, ...users, RUNNER_ROLE: 'commands', RUNNER_HEALTH_PORT: String(healthPort) },
    ready: () => checkHealth(`127.0.0.1:${healthPort}`),
  });
  const session = ca.issue('session', ['session', 'session.relay.svc']);
  startTlsSide = (tlsPort) =>
    startServiceProcess({
      serviceDir: RUNNER_DIR,
      env: { ...common, RUNNER_ROLE: 'tls', RUNNER_PORT: String(tlsPort), ...tlsOf(ca.issue('runner', ['runner', 'runner.relay.svc'])) },
      ready: () => checkHealth(`127.0.0.1:${tlsPort}`, '', 2000, grpcAuth('session', tlsOf(session))),
    });
  tlsSide = await startTlsSide(port);
});

afterAll(async () => {
  for (const client of clients) client.close();
  await tlsSide?.terminate();
  await commandsSide?.terminate();
  ca?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the command runner, through the session service's RunnerSandbox over mutual TLS", () => {
  it("runs a command as its user's sandbox user in their folder, with the environment given and a home of theirs, and streams its output back", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const { output, ended } = await run(
      sandbox,
      project,
      ['sh', '-c', 'pwd; echo "to stderr" >&2; echo "FOO=$FOO HOME=$HOME id=$(id -u):$(id -g):$(id -G)"; touch made-here; exit 3'],
      {
        PATH: '/usr/bin:/bin',
        FOO: 'bar',
      },
    );
    expect(output).toContain(project);
    expect(output).toContain('to stderr');
    // Its own uid and group, no other group (the session service's least of all).
    expect(output).toContain(`FOO=bar HOME=${join(homes, '100001')} id=100001:100001:100001`);
    expect(ended).toEqual({ exitCode: 3, signal: null });
    expect(statSync(join(project, 'made-here'))).toMatchObject({ uid: 100_001, gid: SESSION_GID });
    // The folder is now alice's and the session service's group's, nobody else's.
    expect(statSync(project)).toMatchObject({ uid: 100_001, gid: SESSION_GID });
    expect(statSync(project).mode & 0o7777).toBe(0o2770);
    expect(statSync(join(homes, '100001'))).toMatchObject({ uid: 100_001 });
    expect(statSync(join(homes, '100001')).mode & 0o777).toBe(0o700);
    expect(sandbox.where(project)).toMatch(/^command runner/);
  });

  it('gives output as it comes, before the command ends', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const chunks: string[] = [];
    const command = sandbox.start({
      sessionId: 'alice-session',
      folder: project,
      argv: ['sh', '-c', 'echo first; sleep 30; echo never'],
      env: { PATH: '/usr/bin:/bin' },
      onOutput: (chunk) => chunks.push(Buffer.from(chunk).toString()),
    });
    await command.started;
    await until(() => chunks.join('').includes('first'));
    command.stop();
    expect(await command.ended).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(chunks.join('')).not.toContain('never');
  });

  it('refuses a folder outside the workspace, by its real path (a link that leads out too), and an empty argv', async () => {
    const client = clientAs('session', ca.issue('session', ['session']));
    const sandbox = new RunnerSandbox(client, uids);
    for (const folder of [
      outside,
      join(workspace, 'alice', 'leads-out'),
      join(workspace, 'alice', 'project', '..', '..', '..', 'outside'),
      join(workspace, 'missing'),
    ]) {
      const command = sandbox.start({ sessionId: 'alice-session', folder, argv: ['sh', '-c', 'touch escaped'], env: {}, onOutput: () => undefined });
      await expect(command.started, folder).rejects.toThrow(/refused it/);
      expect((await command.ended).lost).toBeDefined();
    }
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    const refused = await callStream(client, 'runCommand', { folder: outside, argv: ['true'], env: {}, uid: 100_001 })
      .next()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    const empty = await callStream(client, 'runCommand', { folder: project, argv: [], env: {}, uid: 100_001 })
      .next()
      .catch((error: unknown) => error);
    expect((empty as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
    // Root, the relay's own user, and the whole workspace (every user's folders in it) are refused too.
    for (const [folder, uid] of [
      [project, 0],
      [project, 1000],
      [workspace, 100_001],
    ] as const) {
      const wrong = await callStream(client, 'runCommand', { folder, argv: ['sh', '-c', 'touch wrong'], env: {}, uid })
        .next()
        .catch((error: unknown) => error);
      expect((wrong as AppError).code, `${folder} as ${uid}`).toBe('REMOTE_RELAY_INVALID_INPUT');
    }
    expect(existsSync(join(project, 'wrong'))).toBe(false);
    expect(existsSync(join(workspace, 'wrong'))).toBe(false);
  });

  it("cancelling the call stops the command's whole process group", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const chunks: string[] = [];
    const script = 'sleep 300 & echo $! > child.pid; (sleep 300; echo grandchild) & echo $! > sub.pid; echo $$ > leader.pid; echo ready; wait';
    const command = sandbox.start({
      sessionId: 'alice-session',
      folder: project,
      argv: ['sh', '-c', script],
      env: { PATH: '/usr/bin:/bin' },
      onOutput: (chunk) => chunks.push(Buffer.from(chunk).toString()),
    });
    await command.started;
    await until(() => chunks.join('').includes('ready'));
    const pids = ['leader.pid', 'child.pid', 'sub.pid'].map((file) => Number(readFileSync(join(project, file), 'utf8').trim()));
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(true);
    command.stop();
    await command.ended;
    await until(() => pids.every((pid) => !alive(pid)));
    expect(chunks.join('')).not.toContain('grandchild');
  });

  it("a session replica that dies mid-command (its connection dropped) stops the command's process group", async () => {
    const files = ca.issue('session', ['session']);
    // A session service of its own, as a process: SIGKILLed, it cancels nothing; the runner sees the connection drop.
    const replica = [
      `import { RunnerServiceClient } from '@relay/proto/relay/runner/v1/runner_service';`,
      `import { createClient, grpcAuth } from '@relay/rpc';`,
      `import { RunnerSandbox } from ${JSON.stringify(fileURLToPath(new URL('../../src/adapters/runner/runner-sandbox.ts', import.meta.url)))};`,
      `const env = JSON.parse(process.env.REPLICA);`,
      `const sandbox = new RunnerSandbox(createClient(RunnerServiceClient, env.address, grpcAuth('session', env.tls)), async () => 100001);`,
      `sandbox.start({ sessionId: 'alice-session', folder: env.folder, argv: ['sh', '-c', env.script], env: { PATH: '/usr/bin:/bin' }, onOutput: (chunk) => process.stdout.write(chunk) });`,
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
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const { ended } = await run(sandbox, project, ['sh', '-c', 'sleep 300 > /dev/null 2>&1 & echo $! > left.pid; exit 0']);
    expect(ended.exitCode).toBe(0);
    const left = Number(readFileSync(join(project, 'left.pid'), 'utf8').trim());
    await until(() => !alive(left));
  });

  it("keeps one user's commands out of another user's folder, home and processes: the read fails, the file does not appear", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    // Bob's command takes his folder and writes there; a CLI of his keeps running with his provider key in its environment.
    const bob = await run(sandbox, bobProject, ['sh', '-c', 'echo bob-secret > secret.txt; echo bob-home > "$HOME/notes"'], undefined, 'bob-session');
    expect(bob.ended.exitCode).toBe(0);
    const bobCli = sandbox.spawn({
      sessionId: 'bob-session',
      folder: bobProject,
      argv: ['sh', '-c', 'echo $$ > cli.pid; exec cat'],
      env: { PATH: '/usr/bin:/bin', PROVIDER_KEY: 'sk-bob-only' },
    });
    await until(() => existsSync(join(bobProject, 'cli.pid')));
    const bobPid = readFileSync(join(bobProject, 'cli.pid'), 'utf8').trim();
    try {
      const tries = [
        `cat ${bobProject}/secret.txt && echo READ-SECRET`,
        `ls ${bobProject} && echo LISTED`,
        `echo planted > ${bobProject}/planted && echo WROTE`,
        `mv ${bobProject}/secret.txt ${bobProject}/moved.txt && echo MOVED`,
        `cat ${homes}/100002/notes && echo READ-HOME`,
        `cat /proc/${bobPid}/environ && echo READ-ENV`,
        `kill -9 ${bobPid} && echo KILLED`,
      ];
      const alice = await run(sandbox, project, ['sh', '-c', tries.map((line) => `(${line}) 2>&1`).join('; ')]);
      expect(alice.output).toMatch(/Permission denied|Operation not permitted/);
      for (const done of ['READ-SECRET', 'bob-secret', 'LISTED', 'WROTE', 'MOVED', 'READ-HOME', 'bob-home', 'READ-ENV', 'sk-bob-only', 'KILLED'])
        expect(alice.output).not.toContain(done);
      expect(existsSync(join(bobProject, 'planted'))).toBe(false);
      expect(readFileSync(join(bobProject, 'secret.txt'), 'utf8')).toBe('bob-secret\n');
      expect(alive(Number(bobPid))).toBe(true);
      // Nor may alice's command run in bob's folder, or in one below it.
      mkdirSync(join(bobProject, 'nested'));
      for (const folder of [bobProject, join(bobProject, 'nested')]) {
        const command = sandbox.start({ sessionId: 'alice-session', folder, argv: ['sh', '-c', 'touch by-alice'], env: {}, onOutput: () => undefined });
        await expect(command.started, folder).rejects.toThrow(/belongs to another user's commands/);
        expect(existsSync(join(folder, 'by-alice'))).toBe(false);
      }
    } finally {
      bobCli.kill();
    }
  });

  it("keeps one session's commands out of another session's folder of the same user, and lets two sessions the user gave one folder share it", async () => {
    // The uids as the session service gives them: one per user and folder (sandbox_folders), in a database of its own.
    const database = await createTestDatabase({ migrationsDir: fileURLToPath(new URL('../../prisma/migrations', import.meta.url)) });
    const prisma = new PrismaClient({ adapter: new PrismaPg(new pg.Pool({ connectionString: database.url }), { disposeExternalPool: true }) });
    const one = join(workspace, 'carol', 'one');
    const two = join(workspace, 'carol', 'two');
    mkdirSync(one, { recursive: true });
    mkdirSync(two);
    let cli: ReturnType<RunnerSandbox['spawn']> | undefined;
    try {
      // Past the uids the other tests here give by hand.
      await prisma.$executeRaw`SELECT setval('users_sandbox_uid_seq', 200000)`;
      const at = new Date('2026-12-07T12:00:00.000Z');
      for (const id of ['carol', 'dave']) await prisma.user.create({ data: { id, name: id, createdAt: at } });
      const sessions = { 'carol-1': ['carol', one], 'carol-2': ['carol', two], 'carol-3': ['carol', one], 'dave-1': ['dave', one] } as const;
      for (const [id, [userId, cwd]] of Object.entries(sessions)) {
        await prisma.session.create({
          data: { id, userId, cwd, title: id, provider: 'script', model: 'script', origin: 'hosted', state: 'idle', createdAt: at, lastActivityAt: at },
        });
      }
      const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), prismaSandboxUids(prisma));
      const first = await run(sandbox, one, ['sh', '-c', 'echo carol-one-secret > secret.txt'], undefined, 'carol-1');
      expect(first.ended.exitCode).toBe(0);
      cli = sandbox.spawn({
        sessionId: 'carol-1',
        folder: one,
        argv: ['sh', '-c', 'echo $$ > cli.pid; exec cat'],
        env: { PATH: '/usr/bin:/bin', PROVIDER_KEY: 'sk-carol-one' },
      });
      await until(() => existsSync(join(one, 'cli.pid')));
      const cliPid = readFileSync(join(one, 'cli.pid'), 'utf8').trim();

      // Session 2, the same user in another folder: its own uid, and session 1's folder and processes out of reach.
      const tries = [
        `cat ${one}/secret.txt && echo READ-SECRET`,
        `ls ${one} && echo LISTED`,
        `echo planted > ${one}/planted && echo WROTE`,
        `cat /proc/${cliPid}/environ && echo READ-ENV`,
        `kill -9 ${cliPid} && echo KILLED`,
      ];
      const second = await run(sandbox, two, ['sh', '-c', `id -u; ${tries.map((line) => `(${line}) 2>&1`).join('; ')}`], undefined, 'carol-2');
      expect(second.output).toMatch(/Permission denied|Operation not permitted/);
      for (const done of ['READ-SECRET', 'carol-one-secret', 'LISTED', 'WROTE', 'READ-ENV', 'sk-carol-one', 'KILLED'])
        expect(second.output).not.toContain(done);
      expect(existsSync(join(one, 'planted'))).toBe(false);
      expect(alive(Number(cliPid))).toBe(true);
      // Nor may it run a command in session 1's folder.
      const intruder = sandbox.start({ sessionId: 'carol-2', folder: one, argv: ['sh', '-c', 'touch by-session-2'], env: {}, onOutput: () => undefined });
      await expect(intruder.started).rejects.toThrow(/belongs to another user's commands/);
      expect(existsSync(join(one, 'by-session-2'))).toBe(false);

      // Session 3, given the same folder as session 1 (shared): it reads and writes there, and session 1 reads back.
      const third = await run(sandbox, one, ['sh', '-c', 'cat secret.txt && echo from-three > three.txt'], undefined, 'carol-3');
      expect(third.output).toBe('carol-one-secret\n');
      expect((await run(sandbox, one, ['cat', 'three.txt'], undefined, 'carol-1')).output).toBe('from-three\n');
      // Another user's session in that folder is refused, by the folder's owner on the runner.
      const dave = sandbox.start({ sessionId: 'dave-1', folder: one, argv: ['sh', '-c', 'touch by-dave'], env: {}, onOutput: () => undefined });
      await expect(dave.started).rejects.toThrow(/belongs to another user's commands/);
      expect(existsSync(join(one, 'by-dave'))).toBe(false);

      // Each folder its own sandbox user's and the session service's group's (so it reaches both).
      const owners = [statSync(one), statSync(two)];
      expect(owners[0]!.uid).not.toBe(owners[1]!.uid);
      expect(second.output.split('\n')[0]).toBe(String(owners[1]!.uid));
      for (const folder of owners) expect([folder.gid, folder.mode & 0o7777]).toEqual([SESSION_GID, 0o2770]);
      expect(owners.every((folder) => folder.uid > 200_000)).toBe(true);
      expect(statSync(join(one, 'three.txt')).uid).toBe(owners[0]!.uid);
    } finally {
      cli?.kill();
      await prisma.$disconnect();
      await database.drop();
    }
  });

  it("streams a CLI process's stdin, stdout and end over one Exec call (Claude Code's, an ACP agent's)", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const cli = sandbox.spawn({
      sessionId: 'alice-session',
      folder: project,
      argv: ['sh', '-c', 'echo "key=$PROVIDER_KEY" >&2; exec cat'],
      env: { PATH: '/usr/bin:/bin', PROVIDER_KEY: 'sk-alice' },
    });
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<[number | null, string | null]>((resolve) =>
      cli.once('close', (code: number | null, signal: string | null) => resolve([code, signal])),
    );
    await new Promise((resolve) => cli.once('spawn', resolve));
    cli.stdin.write('{"jsonrpc":"2.0","id":1}\n');
    await until(() => stdout.includes('"id":1'));
    cli.stdin.write('second line\n');
    await until(() => stdout.includes('second line'));
    expect(stderr).toBe('key=sk-alice\n');
    cli.stdin.end();
    expect(await closed).toEqual([0, null]);
    expect(cli.exitCode).toBe(0);
  });

  it('killing a CLI (its call cancelled) ends its whole process group on the runner', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const cli = sandbox.spawn({
      sessionId: 'alice-session',
      folder: project,
      argv: ['sh', '-c', 'sleep 300 & echo $! > exec-child.pid; echo $$ > exec.pid; cat'],
      env: { PATH: '/usr/bin:/bin' },
    });
    const closed = new Promise((resolve) => cli.once('close', resolve));
    await until(() => existsSync(join(project, 'exec-child.pid')) && existsSync(join(project, 'exec.pid')));
    const pids = ['exec.pid', 'exec-child.pid'].map((file) => Number(readFileSync(join(project, file), 'utf8').trim()));
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(true);
    expect(cli.kill()).toBe(true);
    await closed;
    await until(() => pids.every((pid) => !alive(pid)));
    expect(cli.killed).toBe(true);
  });

  it("a CLI the runner refuses is an error, as a program that cannot start; one that is no session's has no user to run as", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const cli = sandbox.spawn({ sessionId: 'alice-session', folder: outside, argv: ['sh', '-c', 'touch escaped-cli'], env: {} });
    const error = await new Promise<Error>((resolve) => cli.once('error', resolve));
    expect(error.message).toMatch(/refused it/);
    expect(existsSync(join(outside, 'escaped-cli'))).toBe(false);
    const nobody = sandbox.spawn({ sessionId: undefined, folder: project, argv: ['sh', '-c', 'touch by-nobody-cli'], env: {} });
    // What its caller writes meanwhile goes nowhere, as to a closed pipe: no error of its stdin's.
    nobody.stdin.end('{"jsonrpc":"2.0"}\n');
    expect((await new Promise<Error>((resolve) => nobody.once('error', resolve))).message).toMatch(/only for a session, as its user/);
    expect(existsSync(join(project, 'by-nobody-cli'))).toBe(false);
  });

  it("runs a Claude turn whose Claude Code process (the real CLI, through the provider's one port) lives on the runner as the session's user", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    // Found by the runner, on its own filesystem (here the same checkout's).
    const executable = claudeExecutable(undefined, (await sandbox.locate([claudeProgram(undefined)]))[0], sandbox.machine);
    expect(executable.reason).toBe('');
    // The model: a Messages API on loopback that answers every streamed request with one reply, and tells who asked.
    const keys: (string | undefined)[] = [];
    const api = createServer((request, response) => {
      keys.push(request.headers['x-api-key'] as string | undefined);
      request.resume();
      request.once('end', () => {
        if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) return void response.writeHead(404).end('{}');
        const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          [
            event('message_start', {
              message: {
                id: 'msg_1',
                type: 'message',
                role: 'assistant',
                model: 'claude-opus-5-5',
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 10, output_tokens: 1 },
              },
            }),
            event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
            event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello from the runner' } }),
            event('content_block_stop', { index: 0 }),
            event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } }),
            event('message_stop', {}),
          ].join(''),
        );
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const spawned: string[] = [];
    const provider = new ClaudeProvider('claude-api', {
      billing: { provider: 'claude-api', apiKey: 'sk-ant-alice' },
      missing: '',
      executable,
      models: ['claude-opus-5-5'],
      gatewayUrl: 'http://127.0.0.1:9',
      cards: { raise: async () => 'card', awaitAnswer: async () => 'Deny', cancel: async () => undefined },
      tasks: {
        refusal: () => undefined,
        where: () => '',
        start: async () => {
          throw new Error('no task here');
        },
        track: async () => ({ id: 't' }),
        progress: async () => {},
        end: async () => {},
      } as never,
      sandbox: {
        unavailable: undefined,
        machine: sandbox.machine,
        locate: (programs) => sandbox.locate(programs),
        where: (folder) => sandbox.where(folder),
        spawn: (input) => (spawned.push(input.folder), sandbox.spawn(input)),
      },
      states: { get: async () => undefined, set: async () => {} },
      usage: { record: async () => {}, pause: async () => {} },
      logger: createLogger({ name: 'claude-on-runner', level: 'silent' }),
      baseEnv: {
        PATH: '/usr/bin:/bin',
        ANTHROPIC_BASE_URL: apiUrl,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      query,
      hasTranscript: async () => false,
      history: async () => [],
    });
    try {
      const session = {
        id: 'alice-session',
        userId: 'alice',
        title: 'On the runner',
        provider: 'claude-api',
        model: 'claude-opus-5-5',
        effort: '',
        mode: 'agent' as const,
        cwd: project,
      };
      const reply = await provider.startTurn({
        session,
        message: { id: 'm-1', text: 'Say hello' },
        token: 'rly_s_t',
        signal: new AbortController().signal,
        clock: new ManualClock('2026-12-07T12:00:00.000Z'),
        emit: async () => {},
      });
      expect(reply.text).toBe('Hello from the runner');
      expect(spawned).toEqual([project]);
      // Its process ran as alice's sandbox user: what it kept of the turn is in her private home on the runner.
      expect(statSync(join(homes, '100001', '.claude')).uid).toBe(100_001);
      expect(keys).toContain('sk-ant-alice');
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  }, 60_000);

  it("runs a Copilot turn whose runtime (the real one, through the provider's bridge) lives on the runner as the session's user, its command too", async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const runtime = copilotRuntime(undefined, (await sandbox.locate([copilotProgram(undefined)]))[0], sandbox.machine);
    expect(runtime.reason).toBe('');
    // The uid of each copilot-runtime process in alice's folder while the model is asked: the runtime asking is one.
    const runtimeUids = () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .flatMap((pid) => {
          try {
            if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('/copilot-runtime') || readlinkSync(`/proc/${pid}/cwd`) !== project)
              return [];
            return [Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])];
          } catch {
            return [];
          }
        });
    const seen: number[][] = [];
    // The model: asks for run_command once, then says what it returned.
    const api = await startFakeOpenAiApi({
      models: ['gpt-5.4'],
      answer: (body) => {
        seen.push(runtimeUids());
        const last = body.messages.at(-1);
        if (last.role !== 'tool') {
          const call = { name: 'run_command', arguments: JSON.stringify({ command: 'id -u; touch by-copilot' }) };
          return [
            chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: call }] }),
            chunk({}, 'tool_calls'),
            usageChunk(50, 5),
            DONE,
          ];
        }
        const said = typeof last.content === 'string' ? last.content : last.content.map((part: { text?: string }) => part.text ?? '').join('');
        return [chunk({ role: 'assistant', content: `the tool said: ${said.trim()}` }), chunk({}, 'stop'), usageChunk(50, 5), DONE];
      },
    });
    const spawned: string[][] = [];
    const cards: string[] = [];
    const provider = new CopilotProvider({
      token: undefined,
      byok: { baseUrl: api.url, apiKey: 'copilot-byok-alice' },
      runtime,
      models: ['gpt-5.4'],
      gatewayUrl: 'http://127.0.0.1:9',
      cards: { raise: async (card) => (cards.push(card.kind), 'card'), awaitAnswer: async () => 'Allow', cancel: async () => undefined },
      sandbox: {
        unavailable: undefined,
        machine: sandbox.machine,
        locate: (programs) => sandbox.locate(programs),
        where: (folder) => sandbox.where(folder),
        spawn: (input) => (spawned.push([...input.argv]), sandbox.spawn(input)),
      },
      history: async () => [],
      usage: { record: async () => {} },
      runtimeEnv: { PATH: '/usr/bin:/bin' },
      commandEnv: { PATH: '/usr/bin:/bin' },
      logger: createLogger({ name: 'copilot-on-runner', level: 'silent' }),
    });
    try {
      const session = {
        id: 'alice-session',
        userId: 'alice',
        title: 'On the runner',
        provider: 'copilot',
        model: 'gpt-5.4',
        effort: '',
        mode: 'agent' as const,
        cwd: project,
      };
      const reply = await provider.startTurn({
        session,
        message: { id: 'm-1', text: 'Who are you?' },
        token: 'rly_s_t',
        signal: new AbortController().signal,
        clock: new ManualClock('2026-12-07T12:00:00.000Z'),
        emit: async () => {},
      });
      // The command ran on the runner, as alice's sandbox user, after the owner's Allow.
      expect(reply.text).toBe('the tool said: exit 0\n100001');
      expect(cards).toEqual(['approval']);
      expect(statSync(join(project, 'by-copilot')).uid).toBe(100_001);
      // The runtime that asked the model ran there as alice's sandbox user, its state in her private home.
      expect(seen).toEqual([[100_001], [100_001]]);
      // Both through the one port: the runtime (the SDK's arguments after its program), then the command.
      expect(spawned).toHaveLength(2);
      expect(spawned[0]).toContain(runtime.path);
      expect(spawned[1]).toEqual(['sh', '-c', 'id -u; touch by-copilot']);
      expect(statSync(join(homes, '100001', '.copilot')).uid).toBe(100_001);
      expect(api.requests.map((request) => request.authorization)).toEqual(['Bearer copilot-byok-alice', 'Bearer copilot-byok-alice']);
    } finally {
      await api.close();
    }
    // Nothing of it outlives the turn.
    await until(() => runtimeUids().length === 0);
  }, 90_000);

  it("says where the agents' CLIs lie on its own filesystem, executable, and which are not there", async () => {
    const client = clientAs('session', ca.issue('session', ['session']));
    const sandbox = new RunnerSandbox(client, uids);
    const notExecutable = join(dir, 'not-executable');
    mkdirSync(join(dir, 'a-folder'));
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    const found = await sandbox.locate([
      claudeProgram(undefined),
      copilotProgram(undefined),
      { path: '/bin/sh' },
      { command: 'sh', search: '/nonexistent:relative:/bin' },
      { command: 'no-such-agent', search: '/bin:/usr/bin' },
      { path: notExecutable },
      { path: join(dir, 'a-folder') },
      { path: 'bin/sh' },
      { package: '@relay/no-such-package', file: 'cli' },
      { package: 'typescript', file: 'bin/tsc', via: ['@relay/no-such-package'] },
    ]);
    expect(found[0]).toEqual({ path: expect.stringMatching(/\/@anthropic-ai\/claude-agent-sdk-[^/]+\/claude$/), folder: expect.any(String) });
    // Copilot's runtime runs beside its whole package (shown read-only in a sandbox).
    expect(found[1]!.path).toBe(join(found[1]!.folder, 'prebuilds', `${process.platform}-${process.arch}`, 'copilot-runtime'));
    expect(found.slice(2)).toEqual([
      { path: '/bin/sh', folder: '/bin' },
      { path: '/bin/sh', folder: '/bin' },
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await sandbox.locate([])).toEqual([]);
    // More than a call may ask is refused whole.
    const tooMany = await callUnary(client, 'locateClis', { programs: Array.from({ length: 101 }, () => ({ path: '/bin/sh' })) }).catch(
      (error: unknown) => error,
    );
    expect((tooMany as AppError).code).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('asked before the runner is up, waits for it and gets its answer', async () => {
    const latePort = await freePort();
    const client = createClient(RunnerServiceClient, `127.0.0.1:${latePort}`, grpcAuth('session', tlsOf(ca.issue('session', ['session']))));
    clients.push(client);
    const sandbox = new RunnerSandbox(client, uids);
    let answered = false;
    const asked = sandbox.locate([{ path: '/bin/sh' }]).finally(() => (answered = true));
    // Nothing listens there yet: the ask waits (and is made again) rather than failing.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(answered).toBe(false);
    const late = await startTlsSide(latePort);
    try {
      expect(await asked).toEqual([{ path: '/bin/sh', folder: '/bin' }]);
    } finally {
      await late.terminate();
    }
  });

  it('lists a provider whose CLI the runner lacks as unavailable, saying so; one whose CLI it has, available', async () => {
    const sandbox = new RunnerSandbox(clientAs('session', ca.issue('session', ['session'])), uids);
    const ports = {
      cli: sandbox,
      childEnv: { PATH: '/usr/bin:/bin' },
      commandEnv: {},
      logger: createLogger({ name: 'providers-on-runner', level: 'silent' }),
    } as unknown as ProviderPorts;
    const config = loadConfig({
      RELAY_SERVICE_TOKEN: 't'.repeat(43),
      RELAY_SERVICE_KEYS: `gateway:${'0'.repeat(64)}`,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/relay_session',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      RELAY_CLAUDE_EXECUTABLE: join(dir, 'no-claude-here'),
      OPENAI_API_KEY: 'sk-test',
      RELAY_COPILOT_BASE_URL: 'http://127.0.0.1:9/v1',
      RELAY_ACP_AGENTS: JSON.stringify([
        { id: 'shell-agent', command: ['sh'], models: ['m'] },
        { id: 'gemini', command: ['gemini-not-on-the-runner'], models: ['m'] },
      ]),
    });
    const providers = Object.fromEntries((await configuredProviders(config, ports)).map((provider) => [provider.id, provider.availability()]));
    expect(providers['claude-api']).toEqual({
      available: false,
      reason: `Claude Code's executable ${join(dir, 'no-claude-here')} (RELAY_CLAUDE_EXECUTABLE) is missing or not executable on the command runner`,
    });
    // Codex's CLI found on the runner through its SDK's packages, Copilot's runtime in its platform package.
    expect(providers['codex']).toEqual({ available: true, reason: '' });
    expect(providers['copilot']).toEqual({ available: true, reason: '' });
    expect(providers['shell-agent']).toEqual({ available: true, reason: '' });
    expect(providers['gemini']).toEqual({
      available: false,
      reason: "the ACP agent's program gemini-not-on-the-runner is not on the relay's PATH on the command runner (RELAY_ACP_AGENTS)",
    });
  });

  it('refuses a caller whose certificate does not name session, and one with no client certificate', async () => {
    const gateway = clientAs('gateway', ca.issue('gateway', ['gateway']));
    const forbidden = await callStream(gateway, 'runCommand', { folder: project, argv: ['sh', '-c', 'touch by-gateway'], env: {}, uid: 100_001 })
      .next()
      .catch((error: unknown) => error);
    expect((forbidden as AppError).code).toBe('REMOTE_RELAY_FORBIDDEN');
    const sandbox = new RunnerSandbox(gateway, uids);
    await expect(sandbox.start({ sessionId: 'alice-session', folder: project, argv: ['true'], env: {}, onOutput: () => undefined }).started).rejects.toThrow(
      /refused it/,
    );

    const { credentials } = await import('@grpc/grpc-js');
    const anonymous = new RunnerServiceClient(`127.0.0.1:${port}`, credentials.createSsl(readFileSync(ca.issue('nobody', ['nobody']).ca)));
    clients.push(anonymous);
    const unauthenticated = await callStream(anonymous, 'runCommand', { folder: project, argv: ['sh', '-c', 'touch by-nobody'], env: {}, uid: 100_001 })
      .next()
      .catch((error: unknown) => error);
    expect((unauthenticated as AppError).code).toBe('REMOTE_RELAY_AUTH');
    expect(existsSync(join(project, 'by-gateway'))).toBe(false);
    expect(existsSync(join(project, 'by-nobody'))).toBe(false);
    // Nor may it ask where the CLIs lie.
    await expect(sandbox.locate([{ path: '/bin/sh' }])).rejects.toMatchObject({ code: 'REMOTE_RELAY_FORBIDDEN' });
  });
});
