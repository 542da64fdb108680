import { accessSync, chmodSync, constants, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { renderNatsAuthorization, type NatsUser } from '@relay/config';
import { CliError } from './cli-error.ts';
import { describeExit, ManagedProcess } from './managed-process.ts';
import type { Reporter } from './reporter.ts';

/** Debian installs nats-server into /usr/sbin, which a non-root PATH often lacks. */
const EXTRA_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];
const READY_TIMEOUT_MS = 15_000;

export const NATS_INSTALL_HINT =
  'nats-server is not installed: install it (Debian/Ubuntu: sudo apt-get install nats-server; macOS: brew install nats-server) or set NATS_URL to a NATS server with JetStream';

/** The first executable `name` on PATH (or in the sbin folders), if any. */
export function findExecutable(name: string, pathVariable: string | undefined): string | undefined {
  const dirs = [...(pathVariable ?? '').split(delimiter).filter((dir) => dir !== ''), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; look on.
    }
  }
  return undefined;
}

/**
 * The nats-server binary: from PATH, or installed with apt-get when we are root on a Debian-like
 * system; otherwise a CliError with the one-line instruction.
 */
export async function findOrInstallNatsServer(options: {
  env: Record<string, string>;
  isRoot: boolean;
  reporter: Reporter;
  signal: AbortSignal;
}): Promise<string> {
  const pathVariable = options.env['PATH'];
  const found = findExecutable('nats-server', pathVariable);
  if (found !== undefined) return found;
  const aptGet = findExecutable('apt-get', pathVariable);
  if (aptGet === undefined || !options.isRoot) throw new CliError(NATS_INSTALL_HINT);
  options.reporter.info("nats-server is not on PATH: installing Debian's nats-server with apt-get");
  const aptEnv = { ...options.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]) => runToCompletion({ name: 'apt', command: aptGet, args, env: aptEnv }, options.reporter, options.signal);
  const install = () => apt(['install', '-y', 'nats-server']);
  if (!(await install())) {
    options.reporter.info('apt-get install failed; running apt-get update and trying again');
    await apt(['update']);
    if (!(await install())) throw new CliError(`apt-get install nats-server failed; ${NATS_INSTALL_HINT}`);
  }
  const installed = findExecutable('nats-server', pathVariable);
  if (installed === undefined) throw new CliError(`apt-get installed nats-server but it is not on PATH; ${NATS_INSTALL_HINT}`);
  return installed;
}

/**
 * Writes the nats-server config that lets in only `users`, each with its permissions: readable by this
 * account alone (0600), replaced whole so a server starting meanwhile never reads half of it.
 */
export function writeNatsConfig(path: string, users: readonly NatsUser[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, renderNatsAuthorization(users), { mode: 0o600 });
  // The mode given to writeFileSync is masked by the umask; the file holds passwords.
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

/**
 * Starts `nats-server -js` on 127.0.0.1:`port` with its JetStream store in `storeDir` and, when given,
 * the config file `configFile` (its users); resolves once this very process logs that it is ready (a port
 * probe could be answered by another server).
 */
export async function startNatsServer(options: {
  binary: string;
  port: number;
  storeDir: string;
  configFile?: string;
  reporter: Reporter;
}): Promise<{ url: string; process: ManagedProcess }> {
  mkdirSync(options.storeDir, { recursive: true });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const recent: string[] = [];
  const child = await ManagedProcess.start({
    name: 'nats',
    command: options.binary,
    args: [
      ...(options.configFile !== undefined ? ['-c', options.configFile] : []),
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(options.port),
      '-sd',
      options.storeDir,
    ],
    onLine: (_stream, line) => {
      recent.push(line);
      if (recent.length > 5) recent.shift();
      if (line.includes('Server is ready')) markReady();
      // Our own config's passwords are plaintext on purpose: made at each start, in a file only this account reads.
      const expected = line.includes('Plaintext passwords detected');
      options.reporter.child('nats', line, /\[(WRN|ERR|FTL)\]/.test(line) && !expected ? 'warn' : 'debug');
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const failed = Promise.race([
    child.exited.then((exit) => {
      const reason = recent.find((line) => /\[(ERR|FTL)\]/.test(line))?.replace(/^.*\[(ERR|FTL)\]\s*/, '');
      throw new CliError(`nats-server ${describeExit(exit)} before it was ready${reason === undefined ? '' : `: ${reason}`}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CliError(`nats-server was not ready on 127.0.0.1:${options.port} within ${READY_TIMEOUT_MS / 1000} s`)),
        READY_TIMEOUT_MS,
      );
    }),
  ]);
  failed.catch(() => undefined);
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    await child.stop(2_000);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { url: `nats://127.0.0.1:${options.port}`, process: child };
}

/** Runs a command to its end with its output shown; false when it fails. Aborting stops it. */
async function runToCompletion(
  run: { name: string; command: string; args: string[]; env: Record<string, string> },
  reporter: Reporter,
  signal: AbortSignal,
): Promise<boolean> {
  const child = await ManagedProcess.start({ ...run, onLine: (_stream, line) => reporter.child(run.name, line, 'info') });
  const onAbort = () => void child.stop(5_000);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await child.exited;
    if (signal.aborted) throw signal.reason;
    return exit.code === 0;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
