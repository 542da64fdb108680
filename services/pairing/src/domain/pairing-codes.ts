/** How long a pairing code works: long enough to carry to the other relay, short enough not to linger. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;

/** Codes are compared without case, spaces or dashes, so one read out loud or retyped still works. */
export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}
