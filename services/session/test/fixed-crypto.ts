import type { IdGenerator, SecretSource, TokenHasher } from '../src/app/ports.ts';

/** Predictable ids and secrets, and a readable stand-in for the hash, for unit tests. */
export function fixedCrypto(): IdGenerator & SecretSource & TokenHasher {
  let ids = 0;
  let secrets = 0;
  return {
    newId: () => `id-${++ids}`,
    newSecret: () => `secret-${++secrets}`,
    hash: (token) => `hash(${token})`,
  };
}
