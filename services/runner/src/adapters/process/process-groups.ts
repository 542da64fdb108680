/**
 * Commands as process groups of this machine: each starts as the leader of a new group (detached), with exactly the
 * environment it was given and its real folder as working directory. When its leader exits, whatever it left
 * running in the group is ended too (as a sandbox's PID namespace ends with its first process), so the call's end is
 * the group's end. stop() sends the group SIGTERM, then SIGKILL after STOP_GRACE_MS.
 */
import { spawn } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import type { CommandEvent, GroupProcess, RunnerPorts } from '../../app/run-command.ts';

/** How long a stopped group has to end on SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;

/** Every group started here and still running, ended at once when the runner stops. */
const running = new Set<ProcessGroup>();

export const processGroups: RunnerPorts = {
  async realFolder(path) {
    try {
      const real = await realpath(path);
      return (await stat(real)).isDirectory() ? real : undefined;
    } catch {
      return undefined;
    }
  },
  start: ({ argv, folder, env }) =>
    new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd: folder, env: { ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const group = new ProcessGroup();
      child.stdout.on('data', (chunk: Buffer) => group.push({ stdout: chunk }));
      child.stderr.on('data', (chunk: Buffer) => group.push({ stderr: chunk }));
      // The leader is gone: the rest of its group goes with it, so the output pipes close and the end comes.
      child.once('exit', () => group.signal('SIGKILL'));
      child.once('close', (code, signal) => {
        running.delete(group);
        group.end({ exitCode: code, signal });
      });
      child.once('error', reject);
      child.once('spawn', () => {
        group.pid = child.pid!;
        running.add(group);
        resolve(group);
      });
    }),
};

/** Ends every running group (SIGKILL): the runner is stopping, and no command outlives it. */
export function killAllGroups(): void {
  for (const group of running) group.signal('SIGKILL');
}

class ProcessGroup implements GroupProcess {
  pid = 0;
  #queue: CommandEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #killTimer: NodeJS.Timeout | undefined;

  push(event: CommandEvent): void {
    this.#queue.push(event);
    this.#wake?.();
  }

  end(exited: { exitCode: number | null; signal: string | null }): void {
    this.#ended = true;
    clearTimeout(this.#killTimer);
    this.push({ exited });
  }

  signal(name: 'SIGTERM' | 'SIGKILL'): void {
    // Not once it ended: its group id may belong to another process by now.
    if (this.#ended || this.pid === 0) return;
    try {
      process.kill(-this.pid, name);
    } catch {
      // Already gone.
    }
  }

  stop(): void {
    if (this.#ended || this.#killTimer !== undefined) return;
    this.signal('SIGTERM');
    this.#killTimer = setTimeout(() => this.signal('SIGKILL'), STOP_GRACE_MS);
    this.#killTimer.unref();
  }

  async *events(): AsyncIterable<CommandEvent> {
    for (;;) {
      const event = this.#queue.shift();
      if (event === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      yield event;
      if ('exited' in event) return;
    }
  }
}
