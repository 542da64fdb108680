import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IdGenerator, SecretSource, TokenHasher } from '../../app/ports.ts';
import type { PkceHasher } from '../../app/oauth/ports.ts';

/** Node's crypto behind the domain's id, secret and hash ports. */
export const nodeCrypto: IdGenerator & SecretSource & TokenHasher & PkceHasher = {
  newId: () => randomUUID(),
  // 32 bytes = 256 bits, base64url: 43 characters, safe in headers and URLs.
  newSecret: () => randomBytes(32).toString('base64url'),
  hash: (token) => createHash('sha256').update(token, 'utf8').digest('hex'),
  // RFC 7636, section 4.2: S256.
  challengeOf: (verifier) => createHash('sha256').update(verifier, 'ascii').digest('base64url'),
};
