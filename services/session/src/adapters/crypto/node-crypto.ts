import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IdGenerator, SecretSource, TokenHasher } from '../../app/ports.ts';

/** Node's crypto behind the domain's id, secret and hash ports. */
export const nodeCrypto: IdGenerator & SecretSource & TokenHasher = {
  newId: () => randomUUID(),
  // 32 bytes = 256 bits, base64url: 43 characters, safe in headers and URLs.
  newSecret: () => randomBytes(32).toString('base64url'),
  hash: (token) => createHash('sha256').update(token, 'utf8').digest('hex'),
};
