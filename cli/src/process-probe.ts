import { readFileSync } from 'node:fs';

/** True when a process with this pid exists (EPERM means it exists but is not ours). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `pid` is alive and its command line (read from /proc) contains `fragment`, so a pid the OS
 * has since given to an unrelated process is not mistaken for ours. Without /proc (macOS) the answer
 * is `whenUnknown`: true where a wrong yes is harmless (refusing a second `relay up`), false before a kill.
 */
export function isProcessRunning(pid: number, fragment: string, whenUnknown = false): boolean {
  if (pid === process.pid || !isProcessAlive(pid)) return false;
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return process.platform === 'linux' ? false : whenUnknown;
  }
  return cmdline.includes(fragment);
}

/** Resolves once `pid` is gone, or with false after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
