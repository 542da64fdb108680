import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export type ProcessExit = { code: number | null; signal: NodeJS.Signals | null };

export type StartProcessOptions = {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Each output line, as it comes. */
  onLine: (stream: 'stdout' | 'stderr', line: string) => void;
};

/**
 * A child process `relay up` owns. It runs in its own process group, so the terminal's Ctrl-C reaches
 * only `relay up`, which then stops the children in order.
 */
export class ManagedProcess {
  readonly exited: Promise<ProcessExit>;
  private stopRequested = false;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Spawns the process; rejects when it cannot be started at all (e.g. the binary is missing). */
  static start(options: StartProcessOptions): Promise<ManagedProcess> {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const input = child[stream];
      if (input !== null) createInterface({ input, crlfDelay: Infinity }).on('line', (line) => options.onLine(stream, line));
    }
    return new Promise((resolve, reject) => {
      child.once('error', (error) => reject(new Error(`cannot start ${options.name} (${options.command}): ${error.message}`, { cause: error })));
      child.once('spawn', () => resolve(new ManagedProcess(options.name, child)));
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** True once `stop()` was called: an exit after that is expected. */
  get stopping(): boolean {
    return this.stopRequested;
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs: number): Promise<ProcessExit> {
    this.stopRequested = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first !== 'timeout') return first;
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Kills it at once; for a second Ctrl-C. */
  kill(): void {
    this.stopRequested = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** "exited with code 1" / "was killed by SIGSEGV", for messages. */
export function describeExit(exit: ProcessExit): string {
  return exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
}
