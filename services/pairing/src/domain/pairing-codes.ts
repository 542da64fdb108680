import { invalidInput } from './errors.ts';
import type { PairingCodeStore, Secrets } from './ports.ts';

/** How long a pairing code works: long enough to carry to the other relay, short enough not to linger. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;

/** A one-time pairing code for `userId` (shown once, kept hashed): relays that pair with it act for that user here. */
export async function createPairingCode(
  deps: { codes: PairingCodeStore; secrets: Secrets },
  userId: string,
  now: Date,
): Promise<{ code: string; expiresAt: Date }> {
  if (userId === '') throw invalidInput('user_id is required');
  const code = deps.secrets.newCode();
  const expiresAt = new Date(now.getTime() + PAIRING_CODE_TTL_MS);
  await deps.codes.add({ codeHash: deps.secrets.hash(normaliseCode(code)), userId, expiresAt });
  return { code, expiresAt };
}

/** Codes are compared without case, spaces or dashes, so one read out loud or retyped still works. */
export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}
