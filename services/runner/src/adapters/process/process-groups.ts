/**
 * Commands as process groups of this machine, each as its relay user's sandbox user (uid and group the same number,
 * no supplementary group: Node's spawn drops them when it switches user): each starts as the leader of a new group
 * (detached), with exactly the environment it was given and its real folder as working directory. When its leader
 * exits, whatever it left running in the group is ended too (as a sandbox's PID namespace ends with its first
 * process), so the call's end is the group's end. stop() sends the group SIGTERM, then SIGKILL after STOP_GRACE_MS.
 * A folder a user takes becomes theirs with the session service's group (2770: that user and the session service,
 * nobody else); each user has a private home under `homes` (0700).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, open, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommandEvent, FoundFolder, GroupProcess, RunnerPorts } from '../../app/run-command.ts';

/** How long a stopped group has to end on SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;
/** A taken folder: its owner and the session service's group, setgid so what is made in it keeps that group. */
const TAKEN_FOLDER_MODE = 0o2770;

/** Every group started here and still running, ended at once when the runner stops. */
const running = new Set<ProcessGroup>();

/** The ports over this machine: `sessionGid` the session service's group, `homes` where users' private homes are made. */
export function processGroups(options: { sessionGid: number; homes: string }): RunnerPorts {
  return {
    async findFolder(path, realWorkspace): Promise<FoundFolder | undefined> {
      try {
        const real = await realpath(path);
        const info = await stat(real);
        if (!info.isDirectory()) return undefined;
        const ancestorOwners: number[] = [];
        for (let dir = dirname(real); dir.startsWith(`${realWorkspace}/`); dir = dirname(dir)) ancestorOwners.push((await stat(dir)).uid);
        return { path: real, owner: info.uid, ancestorOwners };
      } catch {
        return undefined;
      }
    },
    async takeFolder(path, uid) {
      // By its descriptor, opened without following a link: what is changed is the folder that was checked.
      const folder = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      try {
        await folder.chmod(TAKEN_FOLDER_MODE);
        await folder.chown(uid, options.sessionGid);
        // chown clears setgid on some systems: the mode once more, now as its new owner's.
        await folder.chmod(TAKEN_FOLDER_MODE);
        return (await folder.stat()).uid;
      } finally {
        await folder.close();
      }
    },
    async home(uid) {
      const home = join(options.homes, String(uid));
      await mkdir(home, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      const folder = await open(home, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      try {
        await folder.chown(uid, uid);
        await folder.chmod(0o700);
      } finally {
        await folder.close();
      }
      return home;
    },
    start: ({ argv, folder, env, uid, stdin }) =>
      new Promise((resolve, reject) => {
        const child = spawn(argv[0]!, argv.slice(1), {
          cwd: folder,
          env: { ...env },
          uid,
          gid: uid,
          detached: true,
          stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
        });
        const group = new ProcessGroup(child.stdin);
        child.stdout!.on('data', (chunk: Buffer) => group.push({ stdout: chunk }));
        child.stderr!.on('data', (chunk: Buffer) => group.push({ stderr: chunk }));
        // A process that stopped reading its stdin: what is still written to it goes nowhere.
        child.stdin?.on('error', () => undefined);
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
}

/** Ends every running group (SIGKILL): the runner is stopping, and no command outlives it. */
export function killAllGroups(): void {
  for (const group of running) group.signal('SIGKILL');
}

class ProcessGroup implements GroupProcess {
  pid = 0;
  readonly #stdin: NodeJS.WritableStream | null;
  #queue: CommandEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #killTimer: NodeJS.Timeout | undefined;

  constructor(stdin: NodeJS.WritableStream | null) {
    this.#stdin = stdin;
  }

  write(chunk: Uint8Array): void {
    if (!this.#ended) this.#stdin?.write(chunk);
  }

  closeStdin(): void {
    this.#stdin?.end();
  }

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
