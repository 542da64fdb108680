import type { OAuthGrant, RefreshToken } from '../../domain/oauth/grants.ts';
import type { Session, SessionCreatedEvent } from '../../domain/sessions/session.ts';
import type { ApiToken } from '../../domain/users/user.ts';
import type { GrantTransaction, NewOAuthGrant, OAuthStore } from '../../app/oauth/ports.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ApiMessages } from './outbox-events.ts';
import { PrismaSessionStore } from './prisma-session-store.ts';

interface GrantRow {
  id: string;
  user_id: string;
  session_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  code_expires_at: Date;
  code_used_at: Date | null;
  revoked_at: Date | null;
  live: boolean;
}

// A grant with whether its session and user still stand, locked for the transaction's redemption.
const GRANT_COLUMNS = `g."id", g."user_id", g."session_id", g."client_id", g."redirect_uri", g."code_challenge", g."resource",
  g."code_expires_at", g."code_used_at", g."revoked_at", (NOT s."archived" AND u."removed_at" IS NULL) AS "live"
  FROM "oauth_grants" g JOIN "sessions" s ON s."id" = g."session_id" JOIN "users" u ON u."id" = g."user_id"`;

/** Sign-in grants and self-registered clients in the session service's database, through Prisma. */
export class PrismaOAuthStore implements OAuthStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly api: Pick<ApiMessages, 'toSessionMessage'>,
  ) {}

  async saveClient(client: { id: string; metadataJson: string; createdAt: Date }): Promise<void> {
    await this.db.oAuthClient.create({
      data: { id: client.id, metadata: JSON.parse(client.metadataJson) as Prisma.InputJsonValue, createdAt: client.createdAt },
    });
  }

  async findClientMetadata(clientId: string): Promise<string | undefined> {
    const row = await this.db.oAuthClient.findUnique({ where: { id: clientId }, select: { metadata: true } });
    return row === null ? undefined : JSON.stringify(row.metadata);
  }

  async createGrant(session: Session, event: SessionCreatedEvent, grant: NewOAuthGrant): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await new PrismaSessionStore(tx, this.api, true).createSession(session, null, event);
      await tx.oAuthGrant.create({ data: grant });
    });
  }

  async withGrantOfCode<T>(codeHash: string, work: (grant: OAuthGrant | undefined, tx: GrantTransaction) => Promise<T>): Promise<T> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<GrantRow[]>(`SELECT ${GRANT_COLUMNS} WHERE g."code_hash" = $1 FOR UPDATE OF g`, codeHash);
      return work(row === undefined ? undefined : toGrant(row), grantTransaction(tx));
    });
  }

  async withRefreshToken<T>(
    tokenHash: string,
    work: (found: { token: RefreshToken; grant: OAuthGrant } | undefined, tx: GrantTransaction) => Promise<T>,
  ): Promise<T> {
    return this.db.$transaction(async (tx) => {
      const token = await tx.oAuthRefreshToken.findUnique({ where: { tokenHash } });
      if (token === null) return work(undefined, grantTransaction(tx));
      const [row] = await tx.$queryRawUnsafe<GrantRow[]>(`SELECT ${GRANT_COLUMNS} WHERE g."id" = $1 FOR UPDATE OF g`, token.grantId);
      // Read again under the grant's lock: of two rotations of one refresh token at once, the second sees it used.
      const locked = await tx.oAuthRefreshToken.findUnique({ where: { tokenHash } });
      if (row === undefined || locked === null) return work(undefined, grantTransaction(tx));
      return work({ token: locked, grant: toGrant(row) }, grantTransaction(tx));
    });
  }
}

function grantTransaction(tx: Prisma.TransactionClient): GrantTransaction {
  return {
    markCodeUsed: async (grantId, now) => {
      await tx.oAuthGrant.update({ where: { id: grantId }, data: { codeUsedAt: now } });
    },
    markRefreshTokenUsed: async (tokenHash, now) => {
      await tx.oAuthRefreshToken.update({ where: { tokenHash }, data: { usedAt: now } });
    },
    revoke: async (grant, now) => {
      await tx.oAuthGrant.update({ where: { id: grant.id }, data: { revokedAt: now } });
      await tx.apiToken.deleteMany({ where: { sessionId: grant.sessionId } });
      await tx.oAuthRefreshToken.deleteMany({ where: { grantId: grant.id } });
    },
    issue: async (accessToken: ApiToken, refreshToken: RefreshToken, now: Date) => {
      await tx.apiToken.deleteMany({ where: { sessionId: accessToken.sessionId, expiresAt: { lte: now } } });
      await tx.apiToken.create({ data: accessToken });
      await tx.oAuthRefreshToken.create({ data: refreshToken });
    },
  };
}

function toGrant(row: GrantRow): OAuthGrant {
  return {
    id: row.id,
    userId: row.user_id,
    sessionId: row.session_id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    resource: row.resource,
    codeExpiresAt: row.code_expires_at,
    codeUsedAt: row.code_used_at,
    revokedAt: row.revoked_at,
    live: row.live,
  };
}
