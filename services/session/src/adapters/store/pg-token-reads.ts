/**
 * Authenticate's read in plain SQL on the pool Prisma's client uses (docs/adr/0024): every call of a caller the
 * gateway has not checked in the last few seconds asks, and through Prisma it was three queries one after another
 * (the token, its user, its session), and the gateway then asked for the relay's settings on its own. One statement:
 * the relay's settings, with the token by its hash, its user (not removed) and the session it is bound to.
 */
import type pg from 'pg';
import { preparedRead, type PreparedRead } from '@relay/db/prepared-read';
import type { SessionOrigin } from '../../domain/sessions/session.ts';
import type { RelaySettings } from '../../domain/settings/relay-settings.ts';
import type { TokenKind, UserRole } from '../../domain/users/user.ts';
import type { TokenLookup, TokenReads } from '../../app/ports.ts';
import { SETTINGS_ID, toRelaySettings } from './prisma-session-store.ts';

/**
 * LOOKUP's row: the relay's settings, then NULLs for the token when there is no such token, for its user when removed,
 * and for its session when it has none (or it is gone).
 */
type LookupRow = RelaySettings & {
  kind: TokenKind | null;
  expiresAt: Date | null;
  userId: string | null;
  role: UserRole | null;
  sessionId: string | null;
  archived: boolean | null;
  origin: SessionOrigin | null;
};

const LOOKUP: PreparedRead = {
  name: 'token_reads_lookup',
  text: `
  SELECT r.agent_sessions_enabled AS "agentSessionsEnabled", r.max_wait_seconds AS "maxWaitSeconds",
         r.max_turn_minutes AS "maxTurnMinutes", r.task_quiet_minutes AS "taskQuietMinutes",
         t.kind, t.expires_at AS "expiresAt", u.id AS "userId", u.role, s.id AS "sessionId", s.archived, s.origin
    FROM relay_settings r
    LEFT JOIN api_tokens t ON t.token_hash = $1
    LEFT JOIN users u ON u.id = t.user_id AND u.removed_at IS NULL
    LEFT JOIN sessions s ON s.id = t.session_id
   WHERE r.id = $2`,
};

export class PgTokenReads implements TokenReads {
  constructor(private readonly pool: pg.Pool) {}

  async lookUpToken(tokenHash: string): Promise<TokenLookup> {
    const { rows } = await preparedRead<LookupRow>(this.pool, LOOKUP, [tokenHash, SETTINGS_ID]);
    const [row] = rows;
    // The one row of relay_settings, which the service seeds before it serves.
    if (row === undefined) throw new Error('relay settings are missing: seedRelaySettings must run at boot');
    const settings = toRelaySettings(row);
    if (row.kind === null) return { holder: undefined, settings };
    return {
      holder: {
        kind: row.kind,
        expiresAt: row.expiresAt,
        user: row.userId === null ? undefined : { id: row.userId, role: row.role! },
        session: row.sessionId === null ? undefined : { id: row.sessionId, archived: row.archived!, origin: row.origin! },
      },
      settings,
    };
  }
}
