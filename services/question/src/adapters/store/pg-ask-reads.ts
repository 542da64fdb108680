/**
 * ListAsks in plain SQL on the pool Prisma's client uses (docs/adr/0024): every read_session of a session asks for the
 * asks pending about it, and Prisma's client cost about as much CPU per query as the rest of the call.
 */
import type pg from 'pg';
import { preparedRead, type PreparedRead } from '@relay/db/prepared-read';
import type { Ask } from '../../domain/ask-entities.ts';
import type { AskFilter, AskReads } from '../../app/ports.ts';
import type { Ask as AskRow } from '../../generated/prisma/client.ts';
import { toAsk } from './prisma-ask-store.ts';

// $2, $3: the asking conversation and the session asked about, or null for any; $4: pending ones only; $5: the ended
// ones that ended at or after it are listed too.
const LIST: PreparedRead = {
  name: 'ask_reads_list',
  text: `
  SELECT id, user_id AS "userId", asking_session_id AS "askingSessionId", about_session_id AS "aboutSessionId",
         question, options, recommendation, detail, status, answer, choice, via,
         created_at AS "createdAt", ended_at AS "endedAt"
    FROM asks
   WHERE user_id = $1
     AND ($2::text IS NULL OR asking_session_id = $2)
     AND ($3::text IS NULL OR about_session_id = $3)
     AND (status = 'pending' OR (NOT $4::boolean AND ended_at >= $5))
   ORDER BY created_at DESC, id DESC
   LIMIT $6`,
};

export class PgAskReads implements AskReads {
  constructor(private readonly pool: pg.Pool) {}

  async list(userId: string, filter: AskFilter): Promise<Ask[]> {
    const values = [userId, filter.askingSessionId ?? null, filter.aboutSessionId ?? null, filter.pendingOnly, filter.endedSince, filter.limit];
    const { rows } = await preparedRead<AskRow>(this.pool, LIST, values);
    return rows.map(toAsk);
  }
}
