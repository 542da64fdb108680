import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsUsers, RELAY_BUS_ROLES, renderNatsAuthorization } from '@relay/config';
import { freePort } from './free-port.ts';
import type { CertificateFiles } from './test-ca.ts';

/** A NATS user and its password, as connectBus takes them. */
export type NatsCredentials = { user: string; password: string };

export type NatsServer = {
  url: string;
  port: number;
  storeDir: string;
  /**
   * A service's own user (each service of the relay has one, with its permissions), or TEST_NATS_USER's, the
   * tests' identity that may do everything (for a test standing in for several services or reading any stream).
   */
  credentials(user: string): NatsCredentials;
  /** NATS_URL, NATS_USER and NATS_PASSWORD for a service's process. */
  env(user: string): { NATS_URL: string; NATS_USER: string; NATS_PASSWORD: string };
  /** SIGTERMs the server and waits for it to exit; the store dir is removed. */
  stop(): Promise<void>;
  /** Stops and starts it again on the same port and store dir, so JetStream data survives. */
  restart(): Promise<void>;
};

/** The tests' own NATS user: no permission list, so it may publish and subscribe anywhere. */
export const TEST_NATS_USER = 'test';

const READY_TIMEOUT_MS = 10_000;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Its own `nats-server -js` on a free loopback port with a temp store dir, so suites are isolated, with the
 * relay's authorization: a user per service with that service's permissions (passwords made here), the tests'
 * own user, and no anonymous access. With `tls`, clients must use TLS and present a certificate from its CA,
 * as on Kubernetes.
 */
export async function startNats(options: { binary?: string; tls?: CertificateFiles } = {}): Promise<NatsServer> {
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'relay-nats-'));
  const storeDir = join(dir, 'store');
  await mkdir(storeDir);
  const passwords = new Map([...RELAY_BUS_ROLES.map((role) => role.service), TEST_NATS_USER].map((user) => [user, randomBytes(18).toString('base64url')]));
  const password = (user: string): string => {
    const found = passwords.get(user);
    if (found === undefined) throw new Error(`startNats: no NATS user ${user}; the users are ${[...passwords.keys()].join(', ')}`);
    return found;
  };
  const users = [
    ...natsUsers(RELAY_BUS_ROLES, (service) => ({ value: password(service) })),
    { user: TEST_NATS_USER, password: { value: password(TEST_NATS_USER) } },
  ];
  const configFile = join(dir, 'nats.conf');
  const tls =
    options.tls === undefined
      ? ''
      : `tls {\n  cert_file: ${JSON.stringify(options.tls.cert)}\n  key_file: ${JSON.stringify(options.tls.key)}\n  ca_file: ${JSON.stringify(options.tls.ca)}\n  verify: true\n}\n`;
  await writeFile(configFile, renderNatsAuthorization(users) + tls, { mode: 0o600 });
  const url = `nats://127.0.0.1:${port}`;
  let child = await launch(binary, port, storeDir, configFile);
  return {
    url,
    port,
    storeDir,
    credentials: (user) => ({ user, password: password(user) }),
    env: (user) => ({ NATS_URL: url, NATS_USER: user, NATS_PASSWORD: password(user) }),
    async stop() {
      await terminate(child);
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      await terminate(child);
      child = await launch(binary, port, storeDir, configFile);
    },
  };
}

async function launch(binary: string, port: number, storeDir: string, configFile: string): Promise<ChildProcess> {
  installExitHook();
  const child = spawn(binary, ['-c', configFile, '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`cannot start ${binary}: ${error.message}`, { cause: error })));
    child.once('exit', (code, signal) => reject(new Error(`${binary} exited (${code ?? signal}) before it was ready: ${stderr.trim()}`)));
  });
  exited.catch(() => undefined);
  child.once('exit', () => running.delete(child));
  try {
    await Promise.race([waitForPort(port), exited]);
  } catch (error) {
    await terminate(child);
    throw error;
  }
  return child;
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on 127.0.0.1:${port} in time`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** True once the server sends its INFO line, i.e. accepts clients (JetStream is up before that). */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('INFO'));
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** A test run that dies without stop() must not leave servers behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}
