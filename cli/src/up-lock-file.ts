import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError } from './cli-error.ts';
import { isProcessRunning, waitForExit } from './process-probe.ts';
import { decideUpLock, runningMessage, type UpLock } from './up-lock.ts';

/** The command-line fragment that identifies a `relay up` process: the CLI's bundle, which cli/bin/launch-cli.mjs starts it from. */
export const RELAY_UP_FRAGMENT = 'cli/dist/main.js';

/** How the processes `relay up` starts show in their command lines: nats-server, and each service's bundle. */
const LEFTOVER_PATTERNS = ['nats-server', 'dist/main.js'];

/** The lock this process holds; every change is written atomically. */
export class UpLockFile {
  private lock: UpLock;

  constructor(
    private readonly path: string,
    lock: UpLock,
  ) {
    this.lock = lock;
  }

  /** Merges `patch` into the lock and rewrites the file. */
  update(patch: Partial<Omit<UpLock, 'pid'>>): void {
    this.lock = { ...this.lock, ...patch };
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.lock, null, 2));
    renameSync(temporary, this.path);
  }

  /** Records a process we started, so a later `relay up` can clean up after a crash of this one. */
  addChild(name: string, pid: number): void {
    this.update({ children: [...this.lock.children.filter((child) => child.name !== name), { name, pid }] });
  }

  /** Removes the lock if it is still ours. */
  release(): void {
    try {
      const current = JSON.parse(readFileSync(this.path, 'utf8')) as { pid?: unknown };
      if (current.pid === this.lock.pid) unlinkSync(this.path);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

export type AcquireResult = { kind: 'acquired'; lockFile: UpLockFile; stale?: UpLock | undefined } | { kind: 'running'; message: string };

/**
 * Takes `.relay/up.lock` for this process: created by link(2) from a complete temp file, so two
 * `relay up`s racing cannot both win and no reader sees a half-written lock.
 */
export function acquireUpLock(path: string, now: Date): AcquireResult {
  mkdirSync(dirname(path), { recursive: true });
  const lock: UpLock = { pid: process.pid, startedAt: now.toISOString(), children: [] };
  const temporary = join(dirname(path), `up.lock.${process.pid}.tmp`);
  writeFileSync(temporary, JSON.stringify(lock, null, 2));
  try {
    let stale: UpLock | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        linkSync(temporary, path);
        return { kind: 'acquired', lockFile: new UpLockFile(path, lock), stale };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const decision = decideUpLock(readIfExists(path), (pid) => isProcessRunning(pid, RELAY_UP_FRAGMENT, true));
      if (decision.action === 'report-running') return { kind: 'running', message: runningMessage(decision.lock) };
      if (decision.action === 'take-over') {
        stale = decision.stale ?? stale;
        rmIfExists(path);
      }
    }
    throw new CliError(`cannot take ${path}: another relay up keeps changing it`);
  } finally {
    rmIfExists(temporary);
  }
}

/** Stops processes a killed `relay up` left behind (they hold ports and JetStream consumers). */
export async function stopLeftovers(stale: UpLock, report: (message: string) => void): Promise<void> {
  const alive = stale.children.filter((child) => LEFTOVER_PATTERNS.some((pattern) => isProcessRunning(child.pid, pattern)));
  for (const child of alive) {
    report(`stopping ${child.name} (pid ${child.pid}) left by an earlier relay up`);
    process.kill(child.pid, 'SIGTERM');
  }
  for (const child of alive) {
    if (!(await waitForExit(child.pid, 5_000))) process.kill(child.pid, 'SIGKILL');
  }
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function rmIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
