import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export type NatsServer = {
  url: string;
  port: number;
  storeDir: string;
  /** SIGTERMs the server and waits for it to exit; the store dir is removed. */
  stop(): Promise<void>;
  /** Stops and starts it again on the same port and store dir, so JetStream data survives. */
  restart(): Promise<void>;
};

const READY_TIMEOUT_MS = 10_000;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Its own `nats-server -js` on a free loopback port with a temp store dir, so suites are isolated. */
export async function startNats(options: { binary?: string } = {}): Promise<NatsServer> {
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'relay-nats-'));
  let child = await launch(binary, port, storeDir);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop() {
      await terminate(child);
      await rm(storeDir, { recursive: true, force: true });
    },
    async restart() {
      await terminate(child);
      child = await launch(binary, port, storeDir);
    },
  };
}

async function launch(binary: string, port: number, storeDir: string): Promise<ChildProcess> {
  installExitHook();
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
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
