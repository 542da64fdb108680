// Starts the relay CLI (TypeScript, through tsx) as a child process and mirrors its exit.
// Plain Node with no dependencies: scripts/up.mjs imports it before `npm ci` may have run.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** npm forwards the terminal's Ctrl-C to us although we got it too; a second one this soon is that echo. */
const ECHO_WINDOW_MS = 1000;

/**
 * Runs `relay <args>`. With `isolate` (for `relay up`) the CLI runs in its own process group with an
 * IPC channel: the terminal's Ctrl-C reaches only us, we forward it once, and the CLI stops its
 * children in order instead of all of them dying at the same moment; if we die, the channel closes
 * and the CLI stops everything.
 */
export function launchCli(args, { isolate = false } = {}) {
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--import', tsx, MAIN, ...args], {
    stdio: isolate ? ['ignore', 'inherit', 'inherit', 'ipc'] : 'inherit',
    detached: isolate,
  });
  let lastForwardedAt = -Infinity;
  const forward = (signal) => {
    const now = Date.now();
    if (now - lastForwardedAt < ECHO_WINDOW_MS) return;
    lastForwardedAt = now;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of SIGNALS) {
    // Without isolation the child shares our process group and gets the terminal's Ctrl-C itself.
    process.on(signal, isolate || signal !== 'SIGINT' ? forward : () => undefined);
  }
  child.on('error', (error) => {
    process.stderr.write(`relay: cannot start ${MAIN}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2));
  });
}
