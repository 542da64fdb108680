import type { ApiToken, TokenKind } from '../../domain/entities.ts';
import type { SecretSource, TokenHasher } from '../ports.ts';

/** Readable prefixes, so a leaked token is recognisable (and scannable) for what it is. */
const PREFIX: Record<TokenKind, string> = { user: 'rly_u_', session: 'rly_s_' };

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
  const token = PREFIX[owner.kind] + deps.secrets.newSecret();
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

/** The kind a token's prefix claims, or undefined when it is not one of ours. */
export function tokenKindOf(token: string): TokenKind | undefined {
  if (token.startsWith(PREFIX.user)) return 'user';
  if (token.startsWith(PREFIX.session)) return 'session';
  return undefined;
}
