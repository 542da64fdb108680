/**
 * Sign-in grants for MCP clients (OAuth 2.1), the session service's side: the gateway's authorization server checks
 * the protocol (client metadata, redirect URIs, PKCE method, resource) and asks here to keep and redeem what it
 * issues. A grant is an external session of its own for the client; its access tokens are that session's tokens, so
 * Authenticate resolves them as it resolves every other. Codes and refresh tokens are secrets stored only as hashes.
 */
import type { Session } from '../../domain/sessions/session.ts';
import { notFound, unauthenticated } from '../../domain/errors.ts';
import {
  ACCESS_TOKEN_MINUTES,
  CODE_PREFIX,
  expiriesFrom,
  redeemCode,
  redeemRefreshToken,
  REFRESH_TOKEN_PREFIX,
  type OAuthGrant,
  type Redemption,
} from '../../domain/oauth/grants.ts';
import { newExternalSession } from '../sessions/create-external-session.ts';
import { mintToken } from '../users/mint-token.ts';
import type { SessionDeps } from '../ports.ts';
import type { GrantTransaction, OAuthStore, PkceHasher } from './ports.ts';

export type OAuthDeps = SessionDeps & { oauth: OAuthStore; pkce: PkceHasher };

/** What the token endpoint answers: the tokens, shown once. */
export interface OAuthTokens {
  accessToken: string;
  expiresInSeconds: number;
  refreshToken: string;
}

/** Keeps a self-registered client's metadata (validated by the gateway) under a new client id. */
export async function registerClient(deps: Pick<OAuthDeps, 'oauth' | 'ids'>, metadataJson: string, now: Date): Promise<string> {
  const id = deps.ids.newId();
  await deps.oauth.saveClient({ id, metadataJson, createdAt: now });
  return id;
}

/** A registered client's metadata as JSON; NOT_FOUND for an unknown client id. */
export async function getClient(deps: Pick<OAuthDeps, 'oauth'>, clientId: string): Promise<string> {
  const metadata = await deps.oauth.findClientMetadata(clientId);
  if (metadata === undefined) throw notFound(`No client '${clientId}' registered on this relay.`, { field: 'client_id' });
  return metadata;
}

/** The person's consent: the client's external session, and a one-time code (shown once) bound to the request. */
export async function grantAuthorization(
  deps: OAuthDeps,
  input: { userId: string; clientId: string; redirectUri: string; codeChallenge: string; resource: string; title: string },
  now: Date,
): Promise<{ code: string; session: Session }> {
  const session = await newExternalSession(deps, { userId: input.userId, title: input.title }, now);
  const code = CODE_PREFIX + deps.secrets.newSecret();
  await deps.oauth.createGrant(
    session,
    { eventId: deps.ids.newId(), occurredAt: now, session },
    {
      id: deps.ids.newId(),
      userId: session.userId,
      sessionId: session.id,
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      resource: input.resource,
      codeHash: deps.hasher.hash(code),
      codeExpiresAt: expiriesFrom(now).code,
      createdAt: now,
    },
  );
  return { code, session };
}

/**
 * Redeems a code for tokens. Any attempt spends the code, so a wrong verifier cannot be retried; a code presented
 * after it was spent revokes its grant. Every refusal is the same UNAUTHENTICATED error.
 */
export async function redeemAuthorizationCode(
  deps: OAuthDeps,
  input: { code: string; clientId: string; redirectUri: string; codeVerifier: string; resource: string },
  now: Date,
): Promise<OAuthTokens> {
  if (!input.code.startsWith(CODE_PREFIX)) throw unauthenticated();
  const request = {
    clientId: input.clientId,
    redirectUri: input.redirectUri,
    resource: input.resource,
    challengeOfVerifier: deps.pkce.challengeOf(input.codeVerifier),
  };
  const tokens = await deps.oauth.withGrantOfCode(deps.hasher.hash(input.code), async (grant, tx) => {
    if (grant === undefined) return undefined;
    const redemption = redeemCode(grant, request, now);
    if (redemption !== 'revoke') await tx.markCodeUsed(grant.id, now);
    return settle(deps, grant, redemption, tx, now);
  });
  if (tokens === undefined) throw unauthenticated();
  return tokens;
}

/** Rotates a refresh token: new tokens, the old one spent; one presented after it was spent revokes its grant. */
export async function refreshGrant(deps: OAuthDeps, input: { refreshToken: string; clientId: string; resource: string }, now: Date): Promise<OAuthTokens> {
  if (!input.refreshToken.startsWith(REFRESH_TOKEN_PREFIX)) throw unauthenticated();
  const tokens = await deps.oauth.withRefreshToken(deps.hasher.hash(input.refreshToken), async (found, tx) => {
    if (found === undefined) return undefined;
    const redemption = redeemRefreshToken(found.token, found.grant, input, now);
    if (redemption === 'issue') await tx.markRefreshTokenUsed(found.token.tokenHash, now);
    return settle(deps, found.grant, redemption, tx, now);
  });
  if (tokens === undefined) throw unauthenticated();
  return tokens;
}

// A revocation commits with the transaction; the refusal is thrown after it, so it is not rolled back.
async function settle(deps: OAuthDeps, grant: OAuthGrant, redemption: Redemption, tx: GrantTransaction, now: Date): Promise<OAuthTokens | undefined> {
  if (redemption === 'revoke') await tx.revoke(grant, now);
  if (redemption !== 'issue') return undefined;
  const expiries = expiriesFrom(now);
  const access = mintToken(deps, { kind: 'session', userId: grant.userId, sessionId: grant.sessionId }, now, expiries.accessToken);
  const refreshToken = REFRESH_TOKEN_PREFIX + deps.secrets.newSecret();
  await tx.issue(
    access.record,
    { tokenHash: deps.hasher.hash(refreshToken), grantId: grant.id, createdAt: now, expiresAt: expiries.refreshToken, usedAt: null },
    now,
  );
  return { accessToken: access.token, expiresInSeconds: ACCESS_TOKEN_MINUTES * 60, refreshToken };
}
