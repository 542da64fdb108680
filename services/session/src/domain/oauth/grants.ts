/**
 * Sign-in grants for MCP clients (OAuth 2.1): when an authorization code or a refresh token may be redeemed. A grant
 * is an external session of its own for one client; what it issues is bound to that client, its redirect URI, its
 * PKCE challenge and the resource (this relay's /mcp). Replaying a code or a refresh token already used means one of
 * them leaked: the whole grant is revoked (OAuth 2.1, sections 4.1.3 and 4.3.1).
 */

/** How long an authorization code may wait to be redeemed. */
export const CODE_MINUTES = 5;
/** How long an access token works: short, since a refresh token gets the next one. */
export const ACCESS_TOKEN_MINUTES = 60;
/** How long a refresh token works unused; each use gives a new one with this much again. */
export const REFRESH_TOKEN_DAYS = 30;

/** Readable prefixes, so a leaked code or refresh token is recognisable for what it is. */
export const CODE_PREFIX = 'rly_c_';
export const REFRESH_TOKEN_PREFIX = 'rly_r_';

/** A grant as the rules read it. */
export interface OAuthGrant {
  id: string;
  userId: string;
  sessionId: string;
  clientId: string;
  redirectUri: string;
  /** The PKCE S256 challenge the client sent with its authorization request. */
  codeChallenge: string;
  resource: string;
  codeExpiresAt: Date;
  codeUsedAt: Date | null;
  revokedAt: Date | null;
  /** Its session is not archived and its user not removed. */
  live: boolean;
}

/** A refresh token as stored: only its hash. */
export interface RefreshToken {
  tokenHash: string;
  grantId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** What to do with a redemption: issue tokens, refuse it, or refuse it and revoke the grant (a replay). */
export type Redemption = 'issue' | 'refuse' | 'revoke';

/** The token request for the authorization_code grant, its verifier already hashed as S256 (RFC 7636). */
export interface CodeRedemption {
  clientId: string;
  redirectUri: string;
  resource: string;
  challengeOfVerifier: string;
}

/** Whether a code may be redeemed at `now` with `request`. */
export function redeemCode(grant: OAuthGrant, request: CodeRedemption, now: Date): Redemption {
  if (grant.revokedAt !== null) return 'refuse';
  if (grant.codeUsedAt !== null) return 'revoke';
  if (grant.codeExpiresAt <= now || !grant.live) return 'refuse';
  const bound =
    grant.clientId === request.clientId &&
    grant.redirectUri === request.redirectUri &&
    grant.resource === request.resource &&
    grant.codeChallenge === request.challengeOfVerifier;
  return bound ? 'issue' : 'refuse';
}

/** Whether a refresh token of `grant` may be redeemed at `now` by the client for the resource. */
export function redeemRefreshToken(token: RefreshToken, grant: OAuthGrant, request: { clientId: string; resource: string }, now: Date): Redemption {
  if (grant.revokedAt !== null) return 'refuse';
  if (token.usedAt !== null) return 'revoke';
  if (token.expiresAt <= now || !grant.live) return 'refuse';
  return grant.clientId === request.clientId && grant.resource === request.resource ? 'issue' : 'refuse';
}

/** When what is issued at `now` stops working. */
export function expiriesFrom(now: Date): { code: Date; accessToken: Date; refreshToken: Date } {
  return {
    code: new Date(now.getTime() + CODE_MINUTES * 60_000),
    accessToken: new Date(now.getTime() + ACCESS_TOKEN_MINUTES * 60_000),
    refreshToken: new Date(now.getTime() + REFRESH_TOKEN_DAYS * 24 * 60 * 60_000),
  };
}
