import { invalidInput } from '../domain/errors.ts';
import { normaliseCode, PAIRING_CODE_TTL_MS } from '../domain/pairing-codes.ts';
import type { PairingCodeStore, Secrets } from './ports.ts';

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
