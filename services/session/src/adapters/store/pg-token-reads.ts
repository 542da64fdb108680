/**
 * Authenticate's read in plain SQL on the pool Prisma's client uses (docs/adr/0024): every call of a caller the
 * gateway has not checked in the last few seconds asks, and through Prisma it was three queries one after another
 * (the token, its user, its session). One statement: the token by its hash with its user (not removed) and the
 * session it is bound to.
 */
import type pg from 'pg';
import { preparedRead, type PreparedRead } from '@relay/db/prepared-read';
import type { SessionOrigin } from '../../domain/sessions/session.ts';
import type { TokenKind, UserRole } from '../../domain/users/user.ts';
import type { TokenHolder, TokenReads } from '../../app/ports.ts';

/** HOLDER's row: NULLs where the user is removed, or the token has no session (or it is gone). */
type HolderRow = {
  kind: TokenKind;
  expiresAt: Date | null;
  userId: string | null;
  role: UserRole | null;
  sessionId: string | null;
  archived: boolean | null;
  origin: SessionOrigin | null;
};

const HOLDER: PreparedRead = {
  name: 'token_reads_holder',
  text: `
  SELECT t.kind, t.expires_at AS "expiresAt", u.id AS "userId", u.role, s.id AS "sessionId", s.archived, s.origin
    FROM api_tokens t
    LEFT JOIN users u ON u.id = t.user_id AND u.removed_at IS NULL
    LEFT JOIN sessions s ON s.id = t.session_id
   WHERE t.token_hash = $1`,
};

export class PgTokenReads implements TokenReads {
  constructor(private readonly pool: pg.Pool) {}

  async findTokenHolder(tokenHash: string): Promise<TokenHolder | undefined> {
    const { rows } = await preparedRead<HolderRow>(this.pool, HOLDER, [tokenHash]);
    const [row] = rows;
    if (row === undefined) return undefined;
    return {
      kind: row.kind,
      expiresAt: row.expiresAt,
      user: row.userId === null ? undefined : { id: row.userId, role: row.role! },
      session: row.sessionId === null ? undefined : { id: row.sessionId, archived: row.archived!, origin: row.origin! },
    };
  }
}
