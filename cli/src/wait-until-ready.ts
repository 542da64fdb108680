import { CliError } from './cli-error.ts';

export type ReadinessCheck = { name: string; where: string; check: () => Promise<boolean> };

/**
 * Polls every check until all pass; a CliError naming the ones that did not come up after `timeoutMs`.
 * A failing or hanging probe counts as not ready.
 */
export async function waitUntilReady(
  checks: readonly ReadinessCheck[],
  options: { timeoutMs: number; intervalMs: number; signal: AbortSignal },
): Promise<void> {
  const pending = new Set(checks);
  const deadline = Date.now() + options.timeoutMs;
  while (pending.size > 0) {
    options.signal.throwIfAborted();
    const results = await Promise.all([...pending].map(async (check) => [check, await probe(check)] as const));
    for (const [check, ready] of results) if (ready) pending.delete(check);
    if (pending.size === 0) return;
    if (Date.now() > deadline) {
      const names = [...pending].map((check) => `${check.name} (${check.where})`).join(', ');
      throw new CliError(`not ready after ${Math.round(options.timeoutMs / 1000)} s: ${names}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}

async function probe(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 3_000);
  });
  try {
    return await Promise.race([check.check().catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
