import { hostname } from 'node:os';
import { loadUpConfig } from '../config.ts';
import { Lifecycle, StopRequested } from '../lifecycle.ts';
import { relayPaths, type RelayPaths } from '../relay-paths.ts';
import { Reporter } from '../reporter.ts';
import type { Replicas } from '../service-plan.ts';
import { acquireUpLock, stopLeftovers } from '../up-lock-file.ts';

export type UpIo = {
  /** Defaults to the process's environment. */
  env?: NodeJS.ProcessEnv;
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
  /** True when a launcher holds an IPC channel to us: its disconnect means it is gone. */
  hasParentChannel: boolean;
  /** Where the relay's state lives; by default `.relay/` in this repository. */
  paths?: RelayPaths;
};

/**
 * `relay up`: the whole relay on this machine until Ctrl-C. Returns the exit code: 0 after a
 * requested stop, 1 when something failed or died, or when a relay up already runs here (a second one
 * says where the first is, on stderr, and starts nothing).
 */
export async function runUp(options: { json: boolean; signInLink?: boolean; replicas?: Replicas }, io: UpIo): Promise<number> {
  const config = loadUpConfig(hostname(), io.env);
  const reporter = new Reporter({
    json: options.json,
    color: io.out.isTTY === true && !config.noColor,
    level: config.logLevel,
    out: io.out,
    err: io.err,
  });
  const paths = io.paths ?? relayPaths(undefined, config.dataDir);
  const acquired = acquireUpLock(paths.lockFile, new Date());
  if (acquired.kind === 'running') {
    io.err.write(`relay: ${acquired.message}; this relay up starts nothing\n`);
    return 1;
  }
  const lifecycle = new Lifecycle();
  const lockFile = acquired.lockFile;
  lifecycle.add({ name: 'lock', silent: true, stop: async () => lockFile.release(), kill: () => lockFile.release() });
  const uninstall = installStopTriggers(lifecycle, reporter, io.hasParentChannel);
  let exitCode = 0;
  try {
    if (acquired.stale !== undefined) await stopLeftovers(acquired.stale, (message) => reporter.info(message));
    // Loaded only now: the gRPC, OpenTelemetry and Prisma-side modules take seconds to load, which a
    // second `relay up` that only reports the running one should not pay.
    const { startRelay } = await import('../start-relay.ts');
    await startRelay(config, paths, lockFile, lifecycle, reporter, {
      signInLink: showsSignInLink(options, io.out.isTTY === true),
      replicas: options.replicas ?? {},
    });
    await lifecycle.stopRequested;
  } catch (error) {
    if (!(error instanceof StopRequested)) {
      reporter.error(error instanceof Error ? error.message : String(error));
      exitCode = 1;
    }
  }
  if (lifecycle.failure !== undefined) {
    reporter.error(lifecycle.failure);
    exitCode = 1;
  }
  await lifecycle.shutdown(reporter);
  uninstall();
  reporter.info('Stopped.');
  return exitCode;
}

/**
 * Whether `relay up` makes and prints the console's one-time sign-in link, which signs in as the relay's first user
 * (its admin) once, within 10 minutes: on a terminal, where only the person at it sees it; never into a redirected
 * log or --json output, unless asked with --sign-in-link.
 */
export function showsSignInLink(options: { json: boolean; signInLink?: boolean }, stdoutIsTerminal: boolean): boolean {
  return options.signInLink === true || (stdoutIsTerminal && !options.json);
}

/**
 * Ctrl-C, SIGTERM, SIGHUP or the launcher going away: an orderly stop. A second signal kills what is
 * left at once and exits 1. Returns a function that removes the handlers.
 */
function installStopTriggers(lifecycle: Lifecycle, reporter: Reporter, hasParentChannel: boolean): () => void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      reporter.info(`${signal}: stopping (again to kill at once)`);
      lifecycle.requestStop();
      return;
    }
    reporter.warn(`${signal} again: killing everything`);
    lifecycle.kill();
    process.exit(1);
  };
  const onDisconnect = () => lifecycle.requestStop();
  const stopSignals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of stopSignals) process.on(signal, onSignal);
  if (hasParentChannel) process.on('disconnect', onDisconnect);
  return () => {
    for (const signal of stopSignals) process.off(signal, onSignal);
    process.off('disconnect', onDisconnect);
  };
}
