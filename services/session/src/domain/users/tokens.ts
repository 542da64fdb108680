import type { TokenKind } from './user.ts';

/** Readable prefixes, so a leaked token is recognisable (and scannable) for what it is. */
export const TOKEN_PREFIX: Record<TokenKind, string> = { user: 'rly_u_', session: 'rly_s_' };

/** The kind a token's prefix claims, or undefined when it is not one of ours. */
export function tokenKindOf(token: string): TokenKind | undefined {
  if (token.startsWith(TOKEN_PREFIX.user)) return 'user';
  if (token.startsWith(TOKEN_PREFIX.session)) return 'session';
  return undefined;
}
