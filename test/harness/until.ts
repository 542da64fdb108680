/**
 * Waiting for a positive sign, as the end-to-end suites do instead of sleeping: `check` is asked every 100 ms until it
 * answers something other than undefined, and that answer is returned.
 */
export interface UntilOptions {
  /** How long to look (default 60 s, real time). */
  timeoutMs?: number;
  /** What to add to the error when time runs out (what was seen meanwhile, the relay's logs …). */
  detail?: () => string;
}

/** Resolves with `check`'s first answer other than undefined; rejects naming `what` once the time is up. */
export async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, options: UntilOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs / 1000} s${options.detail ? `\n${options.detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
