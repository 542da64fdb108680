/**
 * Polls `check` until it answers something other than undefined or false, and returns that (real time, a generous
 * limit: nothing asserts on how long); throws naming `what` once the limit is reached.
 */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 750; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}
