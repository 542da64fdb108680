/**
 * A lock across the processes of one test run (the vitest workers, the e2e global setup): relays start one at a
 * time. A relay's start is mostly CPU (six Node processes loading their modules, five databases migrated), so two
 * starting together on two cores each take twice as long and neither is ready sooner; one at a time, each is ready
 * in half the time and none runs into its ready timeout on a busy machine.
 *
 * The lock is a directory (mkdir is atomic) holding the owner's pid; a lock whose owner has died is taken over.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** One lock per checkout: test runs of other checkouts on the same machine do not wait for this one. */
const LOCK = join(tmpdir(), `relay-start-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`);

/** Runs `work` once no other process of this checkout's tests runs its own; the lock is let go however it ends. */
export async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  await acquire();
  try {
    return await work();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

async function acquire(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK);
      await writeFile(join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await ownerDied()) await rm(LOCK, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** True when the lock's owner no longer runs (a run that was killed mid-start). */
async function ownerDied(): Promise<boolean> {
  const pid = Number(await readFile(join(LOCK, 'pid'), 'utf8').catch(() => ''));
  // No pid: the owner is between its mkdir and its writeFile, or died there a while ago.
  if (!Number.isInteger(pid) || pid <= 0) return Date.now() - ((await stat(LOCK).catch(() => undefined))?.mtimeMs ?? Date.now()) > 10_000;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
