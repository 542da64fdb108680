/** What the sign-in grants for MCP clients need from the outside world (store/prisma-oauth-grants.ts implements it). */
import type { OAuthGrant, RefreshToken } from '../../domain/oauth/grants.ts';
import type { Session, SessionCreatedEvent } from '../../domain/sessions/session.ts';
import type { ApiToken } from '../../domain/users/user.ts';

/** A grant as stored, before it is first read: without what the store derives (live). */
export type NewOAuthGrant = Omit<OAuthGrant, 'live' | 'codeUsedAt' | 'revokedAt'> & { codeHash: string; createdAt: Date };

/** What a redemption writes, in the transaction that read the grant. */
export interface GrantTransaction {
  /** Marks the grant's code used: it never redeems again. */
  markCodeUsed(grantId: string, now: Date): Promise<void>;
  /** Marks a refresh token used: presented again, it revokes its grant. */
  markRefreshTokenUsed(tokenHash: string, now: Date): Promise<void>;
  /** Revokes the grant: its session's tokens and its refresh tokens stop working at once. */
  revoke(grant: OAuthGrant, now: Date): Promise<void>;
  /** Saves a new access token (a token of the grant's session) and refresh token, and drops the session's expired ones. */
  issue(accessToken: ApiToken, refreshToken: RefreshToken, now: Date): Promise<void>;
}

/** Clients that registered themselves, and the grants people consented to, in the session service's database. */
export interface OAuthStore {
  saveClient(client: { id: string; metadataJson: string; createdAt: Date }): Promise<void>;
  /** A registered client's metadata as JSON, or undefined for an unknown client id. */
  findClientMetadata(clientId: string): Promise<string | undefined>;
  /** Saves the client's new external session, its session_created event (an outbox row) and the grant, in one transaction. */
  createGrant(session: Session, event: SessionCreatedEvent, grant: NewOAuthGrant): Promise<void>;
  /** Runs `work` holding the grant whose code hashes to `codeHash` (undefined when none), in one transaction. */
  withGrantOfCode<T>(codeHash: string, work: (grant: OAuthGrant | undefined, tx: GrantTransaction) => Promise<T>): Promise<T>;
  /** Runs `work` holding the refresh token stored under `tokenHash` and its grant (undefined when none), in one transaction. */
  withRefreshToken<T>(tokenHash: string, work: (found: { token: RefreshToken; grant: OAuthGrant } | undefined, tx: GrantTransaction) => Promise<T>): Promise<T>;
}

/** The PKCE S256 transform (RFC 7636): BASE64URL(SHA256(verifier)). */
export interface PkceHasher {
  challengeOf(verifier: string): string;
}
