import type { ApiToken } from '../../domain/users/user.ts';
import { TOKEN_PREFIX } from '../../domain/users/tokens.ts';
import type { SecretSource, TokenHasher } from '../ports.ts';

/**
 * Makes a new bearer token for a user or a session: the token to show once, and the record to
 * store, which holds only its hash.
 */
export function mintToken(
  deps: { secrets: SecretSource; hasher: TokenHasher },
  owner: { kind: 'user'; userId: string } | { kind: 'session'; userId: string; sessionId: string },
  now: Date,
  expiresAt: Date | null = null,
): { token: string; record: ApiToken } {
  const token = TOKEN_PREFIX[owner.kind] + deps.secrets.newSecret();
  return {
    token,
    record: {
      tokenHash: deps.hasher.hash(token),
      kind: owner.kind,
      userId: owner.userId,
      sessionId: owner.kind === 'session' ? owner.sessionId : null,
      createdAt: now,
      expiresAt,
    },
  };
}
