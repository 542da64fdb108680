/**
 * list_sessions', read_session's and relay_info's reads in plain SQL on the pool Prisma's client uses (docs/adr/0024):
 * every relay_tool read of an agent makes them, and Prisma costs about as much CPU per query as the rest of the call.
 * A listing is one statement (the sessions with their groups, starters, calls in flight, whether they have tasks and
 * how their last turns ended), a reading one (that, with the running turn's reply and questions, the last messages and
 * the session's ask mark), relay_info's folders and groups one; each carries the pending note of the external session whose agent
 * reads (`agent`), so that its calls cost no statement more. The note alone (GetPendingMessages, the gateway's streams) is one statement too.
 */
import type pg from 'pg';
import { preparedRead, type PreparedRead } from '@relay/db/prepared-read';
import type { Message as MessageRow, Session as SessionRow } from '../../generated/prisma/client.ts';
import type { EndedTurnStatus, PendingQuestion, TurnStatus } from '../../domain/turns/turn.ts';
import { messageDelivery } from '../../domain/sessions/delivery.ts';
import { PENDING_PREVIEWS, PENDING_ROLES, pendingNote, type PendingNote } from '../../domain/external/external-inbox.ts';
import { toGroupRef } from '../../domain/groups/groups.ts';
import { LIST_LIMIT_MAX } from '../../app/sessions/list-sessions.ts';
import { MAX_READ_LAST } from '../../app/sessions/read-session.ts';
import type { ListedSession, RelayInfoReading, SessionFilter, SessionListing, SessionPage, SessionReading, SessionReads } from '../../app/ports.ts';
import { toMessage, toSession } from './prisma-session-store.ts';

/** pendingColumns as read: NULL where no external session is the agent. */
type PendingRow = { pendingCount: string | null; pendingOldest: string[] | null };

/** A sessions row as Prisma's client reads it (camelCase), with what a listing shows beside it. */
type ListedRow = SessionRow &
  PendingRow & {
    groupName: string | null;
    groupHeadTitle: string | null;
    startedByTitle: string | null;
    callsHeldUntil: Date | null;
    hasTasks: boolean;
    lastTurnStatus: EndedTurnStatus | null;
    lastTurnError: string | null;
    lastTurnEndedAt: Date | null;
  };

/**
 * READ's row: the session as listed, its running turn's reply and questions, its last messages (JSON), and its ask mark
 * (0: no ask pending about it).
 */
type ReadRow = ListedRow & {
  askMark: number;
  running: { inFlight: string; pendingQuestions: PendingQuestion[] } | null;
  messages: (Omit<MessageRow, 'createdAt'> & { createdAt: string; turnStatus: TurnStatus | null; turnStarted: boolean | null })[];
};

/**
 * The pending note of the session `agent` (joined as NULLs where none is asked for, or none is external): how many of
 * its messages past its read marker are of PENDING_ROLES, and the texts of the oldest PENDING_PREVIEWS. Both are
 * written into the statement, not passed: a generic plan then knows too that the note reads only the few messages of
 * those roles (messages_session_id_role_seq_idx), and costs a reading no more than its custom plans do.
 */
const PENDING_COLUMNS = (() => {
  const roles = PENDING_ROLES.map((role) => `'${role}'`).join(', ');
  const unread = `FROM messages m WHERE m.session_id = agent.id AND m.seq > agent.external_read_seq AND m.role IN (${roles})`;
  return `
         CASE WHEN agent.id IS NOT NULL THEN (SELECT count(*) ${unread}) END AS "pendingCount",
         CASE WHEN agent.id IS NOT NULL THEN ARRAY(SELECT m.text ${unread} ORDER BY m.seq LIMIT ${PENDING_PREVIEWS}) END AS "pendingOldest"`;
})();

/** The agent whose pending note a read carries: the external session with the id `id` (a parameter), if any. */
const agentJoin = (id: string) => `LEFT JOIN sessions agent ON agent.id = ${id} AND agent.origin = 'external'`;

// $2: tasks that ended before it are not shown. What a row shows of other rows (its group, its group's head, its
// starter) is looked up by key for that row: joined, the planner could hash every session of the relay to find a page's
// starters.
const LISTED_COLUMNS = `
         s.id, s.user_id AS "userId", s.title, s.provider, s.model, s.origin, s.state, s.cwd, s.archived,
         s.message_count AS "messageCount", s.created_at AS "createdAt", s.last_activity_at AS "lastActivityAt",
         s.effort, s.mode, s.repo, s.branch, s.group_id AS "groupId", s.group_role AS "groupRole",
         s.started_by_session_id AS "startedBySessionId", s.may_create_sessions AS "mayCreateSessions",
         s.auto_compact_window AS "autoCompactWindow", s.thinking_enabled AS "thinkingEnabled",
         s.thinking_display AS "thinkingDisplay", s.worker_started AS "workerStarted",
         s.external_read_seq AS "externalReadSeq",
         (SELECT g.name FROM groups g WHERE g.id = s.group_id) AS "groupName",
         CASE WHEN s.group_id IS NOT NULL THEN
           (SELECT h.title FROM sessions h WHERE h.group_id = s.group_id AND h.group_role = 'head' LIMIT 1) END AS "groupHeadTitle",
         (SELECT starter.title FROM sessions starter WHERE starter.id = s.started_by_session_id) AS "startedByTitle",
         (SELECT max(c.expires_at) FROM external_calls c WHERE c.session_id = s.id) AS "callsHeldUntil",
         EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = s.id AND (t.status = 'running' OR t.ended_at >= $2)) AS "hasTasks",
         last_turn.status AS "lastTurnStatus", last_turn.error AS "lastTurnError", last_turn.ended_at AS "lastTurnEndedAt"`;
// The turn that ended last (turns_session_id_ended_at_idx); of two that ended at one instant, the one queued later.
const LISTED_JOINS = `
    LEFT JOIN LATERAL (SELECT t.status, t.error, t.ended_at FROM turns t
                        WHERE t.session_id = s.id AND t.ended_at IS NOT NULL
                        ORDER BY t.ended_at DESC, t.queued_at DESC, t.id DESC LIMIT 1) last_turn ON true`;

/** The turn running or waiting for an answer (the oldest, as the runner takes them). */
const RUNNING_TURN = `
  (SELECT json_build_object('inFlight', t.in_flight, 'pendingQuestions', t.pending_questions)
     FROM turns t WHERE t.session_id = s.id AND t.status IN ('running', 'waiting_for_answer')
    ORDER BY t.queued_at, t.id LIMIT 1)`;

/** A listing's order, most recently active first (sessions_user_id_archived_last_activity_at_idx serves it). */
const LISTING_ORDER = (s: string) => `${s}.last_activity_at DESC, ${s}.created_at DESC, ${s}.id`;
/** The user's ($1) sessions in a listing's scope (the parameter `archived`: archived or not, NULL: both). */
const inScope = (archived: string) => `user_id = $1 AND (${archived}::boolean IS NULL OR archived = ${archived})`;

// The page first ($5 sessions, one more than the page, past the first $6), read in the index's order; only its rows are
// joined and given their columns (joining the page back to sessions let the generic plan hash it and scan every
// session). The index is read for the largest page there is (a constant) and the page cut to $5 as it is joined: with
// LIMIT $5 there the generic plan was costed for a tenth of the user's sessions, so at 10,000 sessions PostgreSQL
// planned every call afresh (0.6 ms, where running the statement takes 0.7 ms). The agent's note rides on its own
// session's row; a listing without that row reads it apart (PENDING). The note is read once, in a WITH of its own: as
// columns of every row, the planner costed its two looks at messages once per row, and with 10,000 messages in one
// conversation the estimate passed jit_above_cost, so PostgreSQL compiled the statement on every call (30–50 ms with a
// custom plan, 600 ms with the generic one, where running it takes 2 ms).
const LIST: PreparedRead = {
  name: 'session_reads_list',
  text: `
  WITH s AS (SELECT * FROM sessions WHERE ${inScope('$3')} ORDER BY ${LISTING_ORDER('sessions')} LIMIT ${LIST_LIMIT_MAX + 1} OFFSET $6),
       note AS MATERIALIZED (SELECT agent.id, ${PENDING_COLUMNS} FROM (SELECT) AS one ${agentJoin('$4')})
  SELECT ${LISTED_COLUMNS}, note."pendingCount", note."pendingOldest"
    FROM s ${LISTED_JOINS} LEFT JOIN note ON note.id = s.id
   ORDER BY ${LISTING_ORDER('s')} LIMIT $5`,
};
// How many sessions a listing's scope holds.
const LIST_TOTAL: PreparedRead = {
  name: 'session_reads_list_total',
  text: `SELECT count(*)::int AS total FROM sessions WHERE ${inScope('$2')}`,
};
/**
 * The session's last $3 messages, newest last, as one JSON array; created_at as timestamptz, which JSON writes with
 * its offset (a TIMESTAMP(3) without one would read in the process's time zone). Each with the status of the turn it
 * queued and whether that turn started (NULL without one): its delivery (domain/sessions/delivery.ts). Read as a
 * listing's page is, the most a reading returns (a constant) cut to $3 as they are joined: with LIMIT $3 on the
 * messages the generic plan was costed for a tenth of the conversation, and at 10,000 messages PostgreSQL planned
 * every reading afresh (0.5 ms, where running the statement takes 0.3 ms).
 */
const RECENT_MESSAGES = `
  (SELECT COALESCE(json_agg(m ORDER BY m."createdAt", m.seq), '[]')
     FROM (SELECT mm.id, mm.session_id AS "sessionId", mm.role, mm.text, mm.provenance, mm.model,
                  mm.sender_session_id AS "senderSessionId", mm.created_at AT TIME ZONE 'UTC' AS "createdAt", mm.seq,
                  t.status AS "turnStatus", t.started_at IS NOT NULL AS "turnStarted"
             FROM (SELECT * FROM messages WHERE session_id = s.id ORDER BY created_at DESC, seq DESC LIMIT ${MAX_READ_LAST}) mm
             LEFT JOIN turns t ON t.message_id = mm.id
            ORDER BY mm.created_at DESC, mm.seq DESC LIMIT $3) m)`;
const READ: PreparedRead = {
  name: 'session_reads_read',
  text: `
  SELECT ${LISTED_COLUMNS}, s.ask_mark AS "askMark", ${RUNNING_TURN} AS "running", ${RECENT_MESSAGES} AS "messages",
         ${PENDING_COLUMNS}
    FROM sessions s ${LISTED_JOINS} ${agentJoin('$4')}
   WHERE s.id = $1`,
};

// relay_info's: the user's distinct non-empty folders by their latest activity ($2 at most), and every group of the
// user (latest activity first, as ConversationStore.listGroups orders them) with its head's title and member count.
const RELAY_INFO: PreparedRead = {
  name: 'session_reads_relay_info',
  text: `
  SELECT ARRAY(SELECT cwd FROM sessions WHERE user_id = $1 AND cwd <> ''
                GROUP BY cwd ORDER BY max(last_activity_at) DESC, cwd LIMIT $2) AS "recentCwds",
         COALESCE((SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'headTitle', m.head_title, 'memberCount', m.members)
                                   ORDER BY g.last_activity_at DESC, g.created_at DESC, g.id)
                     FROM groups g
                     CROSS JOIN LATERAL (SELECT count(*)::int AS members,
                                                COALESCE(min(s.title) FILTER (WHERE s.group_role = 'head'), '') AS head_title
                                           FROM sessions s WHERE s.group_id = g.id) m
                    WHERE g.user_id = $1), '[]') AS groups,
         ${PENDING_COLUMNS}
    FROM (SELECT) AS one ${agentJoin('$3')}`,
};

// The notes of the external sessions among $1.
const PENDING: PreparedRead = {
  name: 'session_reads_pending',
  text: `SELECT agent.id, ${PENDING_COLUMNS} FROM sessions agent WHERE agent.id = ANY($1) AND agent.origin = 'external'`,
};

export class PgSessionReads implements SessionReads {
  constructor(private readonly pool: pg.Pool) {}

  async listSessions(userId: string, filter: SessionFilter, page: SessionPage, tasksEndedSince: Date, pendingFor?: string): Promise<SessionListing> {
    // LIST reads at most the largest page: a larger one would come back cut short.
    if (page.limit > LIST_LIMIT_MAX) throw new Error(`a listing's page is at most ${LIST_LIMIT_MAX} sessions; asked for ${page.limit}`);
    const archived = filter.archived ?? null;
    // One more than the page: a page that is not full tells the total without counting.
    const { rows } = await this.query<ListedRow>(LIST, [userId, tasksEndedSince, archived, pendingFor ?? null, page.limit + 1, page.offset]);
    const own = rows.find((row) => row.id === pendingFor);
    const pending = own !== undefined || pendingFor === undefined ? noteOf(own) : await this.pending(pendingFor);
    const sessions = rows.slice(0, page.limit).map(toListedSession);
    const known = rows.length <= page.limit && (rows.length > 0 || page.offset === 0);
    const total = known ? page.offset + rows.length : (await this.query<{ total: number }>(LIST_TOTAL, [userId, archived])).rows[0]!.total;
    return { sessions, total, pending };
  }

  async readSession(sessionId: string, last: number, tasksEndedSince: Date, pendingFor?: string): Promise<SessionReading | undefined> {
    // READ reads at most MAX_READ_LAST messages: more would come back cut short.
    if (last > MAX_READ_LAST) throw new Error(`a reading returns at most ${MAX_READ_LAST} messages; asked for ${last}`);
    const { rows } = await this.query<ReadRow>(READ, [sessionId, tasksEndedSince, last, pendingFor ?? null]);
    const [row] = rows;
    if (row === undefined) return undefined;
    const messages = row.messages.map(({ turnStatus, turnStarted, ...message }) => {
      const read = toMessage({ ...message, createdAt: new Date(message.createdAt) });
      const turn = turnStatus === null ? null : { status: turnStatus, started: turnStarted === true };
      const delivery = messageDelivery({ role: read.role, seq: message.seq, turn }, row);
      return delivery === undefined ? read : Object.assign(read, { delivery });
    });
    return { session: toListedSession(row), messages, running: row.running, askMark: row.askMark, pending: noteOf(row) };
  }

  async relayInfo(userId: string, cwdLimit: number, pendingFor?: string): Promise<RelayInfoReading> {
    const { rows } = await this.query<Omit<RelayInfoReading, 'pending'> & PendingRow>(RELAY_INFO, [userId, cwdLimit, pendingFor ?? null]);
    const row = rows[0]!;
    return { recentCwds: row.recentCwds, groups: row.groups, pending: noteOf(row) };
  }

  async pending(sessionId: string): Promise<PendingNote | undefined> {
    return (await this.pendingOf([sessionId])).get(sessionId);
  }

  async pendingOf(sessionIds: readonly string[]): Promise<Map<string, PendingNote>> {
    const { rows } = await this.query<{ id: string } & PendingRow>(PENDING, [sessionIds]);
    return new Map(rows.map((row) => [row.id, noteOf(row)!]));
  }

  private query<R extends pg.QueryResultRow>(statement: PreparedRead, values: unknown[]): Promise<pg.QueryResult<R>> {
    return preparedRead<R>(this.pool, statement, values);
  }
}

/** The note pendingColumns read; undefined where they are NULL (no external session was the agent), or no row. */
function noteOf(row: PendingRow | undefined): PendingNote | undefined {
  if (row?.pendingCount == null) return undefined;
  return pendingNote(
    Number(row.pendingCount),
    (row.pendingOldest ?? []).map((text) => ({ text })),
  );
}

function toListedSession(row: ListedRow): ListedSession {
  const session = toSession(row);
  // Added to the new session, not spread into a copy: each key added after a spread cost V8 (Node 20) 2–3 µs, which
  // made this mapping a sixth of a listing's CPU.
  return Object.assign(session, {
    group:
      row.groupId === null ? null : toGroupRef({ id: row.groupId, name: row.groupName, headTitle: row.groupHeadTitle ?? '' }, session.groupRole ?? 'member'),
    startedByTitle: row.startedByTitle ?? '',
    callsHeldUntil: row.callsHeldUntil,
    hasTasks: row.hasTasks,
    lastTurn: row.lastTurnStatus === null ? null : { status: row.lastTurnStatus, error: row.lastTurnError ?? '', endedAt: row.lastTurnEndedAt! },
  });
}
