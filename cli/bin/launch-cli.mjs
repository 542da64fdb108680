// Runs the relay CLI from its build, cli/dist/main.js (scripts/build.mjs), made again first when it is missing
// or older than a source. Plain Node with no dependencies until a build is needed: scripts/up.mjs imports it
// before `npm ci` may have run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, CLI_DIR } from '../../scripts/build.mjs';

/** The CLI's bundle; `relay up` runs as `node … <MAIN> up`, and the other commands find it by that. */
export const MAIN = join(CLI_DIR, 'dist', 'main.js');
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** npm forwards the terminal's Ctrl-C to us although we got it too; a second one this soon is that echo. */
const ECHO_WINDOW_MS = 1000;

async function built() {
  await buildIfStale(CLI_DIR);
  return MAIN;
}

/** Runs `relay` in this process, on process.argv as given: one Node start, no child. */
export async function runCli() {
  const main = await built();
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(main).href);
}

/**
 * Runs `relay up <args>` as a child process in its own process group, with an IPC channel, and mirrors its exit: the
 * terminal's Ctrl-C reaches only us, we forward it once, and the CLI stops its children in order instead of all of
 * them dying at the same moment; if we die, the channel closes and the CLI stops everything.
 */
export async function launchUp(args) {
  const child = spawn(process.execPath, ['--enable-source-maps', await built(), 'up', ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  let lastForwardedAt = -Infinity;
  const forward = (signal) => {
    const now = Date.now();
    if (now - lastForwardedAt < ECHO_WINDOW_MS) return;
    lastForwardedAt = now;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of SIGNALS) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`relay: cannot start ${MAIN}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2));
  });
}
