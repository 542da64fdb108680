import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Secrets } from '../../app/ports.ts';

// Crockford's base32 without I, L, O, U: nothing a person misreads.
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Node's crypto behind the domain's Secrets port. */
export const nodeSecrets: Secrets = {
  // 32 bytes = 256 bits, base64url: 43 characters, safe in headers.
  newToken: () => randomBytes(32).toString('base64url'),
  // 12 characters of base32 = 60 bits, in three groups; single use and short-lived, so enough.
  newCode: () => {
    const chars = Array.from({ length: 12 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]);
    return [0, 4, 8].map((start) => chars.slice(start, start + 4).join('')).join('-');
  },
  newId: () => randomUUID(),
  hash: (secret) => createHash('sha256').update(secret, 'utf8').digest('hex'),
  sameHash: (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b)),
};
