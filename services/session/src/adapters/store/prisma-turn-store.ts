import { enqueue, outgoing, type OutboxEntry } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { RelayMode } from '../../domain/sessions/session.ts';
import type { TurnEnding } from '../../domain/turns/turn-rules.ts';
import type { PendingQuestion, Turn } from '../../domain/turns/turn.ts';
import type { ApiToken } from '../../domain/users/user.ts';
import type { ResumePoint } from '../../app/turns/provider.ts';
import type { ClaimedTurn, EndedTurn, QueuedTurn, RunnableSession, RunningTurnRow, TurnEvent, TurnStore, TurnTransaction } from '../../app/turns/turn-store.ts';
import type { Message } from '../../domain/sessions/conversation.ts';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import type { ApiMessages } from './outbox-events.ts';
import { toPendingQuestions, toTurn } from './turn-row.ts';

type Tx = Prisma.TransactionClient;
type Api = Pick<ApiMessages, 'toPendingQuestion' | 'toTurnStatusMessage'>;

/** A turn's session as the runner reads it with the turn (claimCandidate, takeOverTurn). */
type SessionColumns = {
  session_id: string;
  user_id: string;
  title: string;
  provider: string;
  model: string;
  effort: string;
  session_mode: string;
  cwd: string;
  repo: string;
  branch: string;
  auto_compact_window: string;
  thinking_enabled: boolean;
  thinking_display: string;
};

type CandidateRow = SessionColumns & {
  id: string;
  message_id: string;
  mode: string;
  stop_requested: boolean;
  sender_session_id: string | null;
  trace_parent: string | null;
  archived: boolean;
  text: string;
};

type TakenOverRow = SessionColumns & {
  id: string;
  message_id: string;
  mode: string;
  trace_parent: string | null;
  started_at: Date;
  resume_point: ResumePoint;
  text: string;
};

type EndedRow = { id: string; session_id: string; message_id: string; sender_session_id: string | null };

/**
 * Whether a budget holds the candidate session `s`: its own or an ancestor's (up through started_by_session_id) is
 * reached or ended (docs/adr/0039-tree-budgets.md).
 */
const HELD_BY_BUDGET = Prisma.sql`
  WITH RECURSIVE up(id, parent) AS (
      SELECT s.id, s.started_by_session_id
      UNION
      SELECT p.id, p.started_by_session_id FROM sessions p JOIN up ON p.id = up.parent)
  SELECT 1 FROM up JOIN budgets b ON b.session_id = up.id WHERE b.state <> 'active'`;

/** The store's view of "now": timestamp(3) columns hold UTC, so instants travel as ISO text cast to timestamp. */
function at(instant: Date): string {
  return instant.toISOString();
}

/**
 * The turn runtime's store in the session service's database; `transaction` runs a use case's statements (app/turns)
 * in one interactive transaction. The turns table is the work queue: a claim is `SELECT … FOR NO KEY UPDATE SKIP
 * LOCKED`, so replicas never take the same turn and never wait for each other's claims. Locks are taken session row
 * first, then turn rows, everywhere a transaction waits for one, so two of them cannot deadlock.
 */
export class PrismaTurnStore implements TurnStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly api: Api,
  ) {}

  transaction<T>(work: (tx: TurnTransaction) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(new PrismaTurnStatements(tx, this.api)));
  }

  async expiredLeases(now: Date, limit: number): Promise<{ turnId: string; sessionId: string }[]> {
    const rows = await this.prisma.$queryRaw<{ id: string; session_id: string }[]>`
      SELECT id, session_id FROM turns
       WHERE status IN ('running', 'waiting_for_answer') AND (lease_until IS NULL OR lease_until < ${at(now)}::timestamp(3))
       ORDER BY lease_until
       LIMIT ${limit}`;
    return rows.map((row) => ({ turnId: row.id, sessionId: row.session_id }));
  }

  async renewLease(turnId: string, runnerId: string, leaseUntil: Date): Promise<boolean> {
    const renewed = await this.prisma.$executeRaw`
      UPDATE turns SET lease_until = ${at(leaseUntil)}::timestamp(3)
       WHERE id = ${turnId} AND runner_id = ${runnerId} AND status IN ('running', 'waiting_for_answer')`;
    return renewed === 1;
  }

  async stopRequested(runnerId: string): Promise<string[]> {
    const rows = await this.prisma.turn.findMany({
      where: { runnerId, stopRequested: true, status: { in: ['running', 'waiting_for_answer'] } },
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }

  async setInFlight(turnId: string, runnerId: string, text: string): Promise<void> {
    await this.prisma.turn.updateMany({
      where: { id: turnId, runnerId, status: { in: ['running', 'waiting_for_answer'] } },
      data: { inFlight: text },
    });
  }

  async saveResumePoint(turnId: string, runnerId: string, point: ResumePoint): Promise<boolean> {
    const saved = await this.prisma.turn.updateMany({
      where: { id: turnId, runnerId, status: { in: ['running', 'waiting_for_answer'] } },
      data: { resumePoint: point as Prisma.InputJsonValue },
    });
    return saved.count === 1;
  }

  async releaseTurn(turnId: string, runnerId: string): Promise<boolean> {
    // runner_id goes too: whatever the old runner still writes finds the turn no longer its own.
    const released = await this.prisma.turn.updateMany({
      where: { id: turnId, runnerId, status: { in: ['running', 'waiting_for_answer'] } },
      data: { runnerId: null, leaseUntil: null },
    });
    return released.count === 1;
  }

  async findTurn(turnId: string): Promise<Turn | undefined> {
    const row = await this.prisma.turn.findUnique({ where: { id: turnId } });
    return row === null ? undefined : toTurn(row);
  }

  async findTurnByMessage(messageId: string): Promise<Turn | undefined> {
    const row = await this.prisma.turn.findUnique({ where: { messageId } });
    return row === null ? undefined : toTurn(row);
  }

  async requestStop(sessionId: string): Promise<boolean> {
    // The turn that holds the session, or else the next one to run (it is as good as running to the caller).
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE turns SET stop_requested = true
       WHERE id = (SELECT id FROM turns
                    WHERE session_id = ${sessionId} AND status IN ('queued', 'running', 'waiting_for_answer')
                    ORDER BY status = 'queued', queued_at, id
                    LIMIT 1)
      RETURNING id`;
    return rows.length > 0;
  }

  async startWorker(token: ApiToken): Promise<void> {
    if (token.sessionId === null) throw new Error('a worker token must be bound to its session');
    const sessionId = token.sessionId;
    await this.prisma.$transaction(async (tx) => {
      await tx.apiToken.create({ data: token });
      await tx.session.update({ where: { id: sessionId }, data: { workerStarted: true } });
    });
  }

  async stopWorker(sessionId: string, tokenHash: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.apiToken.deleteMany({ where: { tokenHash } });
      await tx.session.updateMany({ where: { id: sessionId }, data: { workerStarted: false } });
    });
  }
}

/** TurnTransaction on an interactive transaction's client. */
class PrismaTurnStatements implements TurnTransaction {
  constructor(
    private readonly tx: Tx,
    private readonly api: Api,
  ) {}

  async claimCandidate(held: readonly string[]): Promise<QueuedTurn | undefined> {
    // The oldest queued turn of a session with no running or waiting turn. A turn queued before it in
    // the same session, even one another runner is claiming right now, keeps it out, and SKIP LOCKED
    // passes over rows (turn or session) another transaction holds instead of waiting for them.
    // Turns of a provider a usage limit holds stay queued, passed over, until the pause ends; so do the turns of a
    // tree a budget holds (its own or an ancestor's reached or ended), until the person raises or removes it.
    const [row] = await this.tx.$queryRaw<CandidateRow[]>`
      SELECT t.id, t.message_id, t.mode, t.stop_requested, t.sender_session_id, t.trace_parent,
             s.id AS session_id, s.user_id, s.title, s.provider, s.model, s.effort, s.mode AS session_mode, s.cwd, s.archived,
             s.repo, s.branch, s.auto_compact_window, s.thinking_enabled, s.thinking_display,
             m.text
        FROM turns t
        JOIN sessions s ON s.id = t.session_id
        JOIN messages m ON m.id = t.message_id
       WHERE t.status = 'queued'
         AND s.provider <> ALL(${[...held]}::text[])
         AND NOT EXISTS (${HELD_BY_BUDGET})
         AND NOT EXISTS (SELECT 1 FROM turns a WHERE a.session_id = t.session_id AND a.status IN ('running', 'waiting_for_answer'))
         AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.session_id = t.session_id AND e.status = 'queued'
                                                 AND (e.queued_at, e.id) < (t.queued_at, t.id))
       ORDER BY t.queued_at, t.id
       LIMIT 1
         FOR NO KEY UPDATE OF t, s SKIP LOCKED`;
    if (row === undefined) return undefined;
    return {
      turnId: row.id,
      messageId: row.message_id,
      text: row.text,
      mode: row.mode as RelayMode,
      stopRequested: row.stop_requested,
      senderSessionId: row.sender_session_id,
      traceParent: row.trace_parent,
      sessionArchived: row.archived,
      session: toRunnableSession(row),
    };
  }

  async markRunning(turnId: string, runnerId: string, startedAt: Date, leaseUntil: Date): Promise<void> {
    await this.tx.$executeRaw`
      UPDATE turns SET status = 'running', runner_id = ${runnerId}, lease_until = ${at(leaseUntil)}::timestamp(3),
                       started_at = ${at(startedAt)}::timestamp(3)
       WHERE id = ${turnId}`;
  }

  async markClaimedEnded(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<void> {
    await this.tx.$executeRaw`
      UPDATE turns SET status = ${ending.status}, error = ${ending.error}, runner_id = ${runnerId},
                       started_at = ${at(now)}::timestamp(3), ended_at = ${at(now)}::timestamp(3)
       WHERE id = ${turnId}`;
  }

  async sessionOfTurn(turnId: string): Promise<string | undefined> {
    const turn = await this.tx.turn.findUnique({ where: { id: turnId }, select: { sessionId: true } });
    return turn?.sessionId;
  }

  async lockSession(sessionId: string): Promise<string | undefined> {
    const [row] = await this.tx.$queryRaw<{ user_id: string }[]>`SELECT user_id FROM sessions WHERE id = ${sessionId} FOR NO KEY UPDATE`;
    return row?.user_id;
  }

  async endRunningTurn(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<EndedTurn | undefined> {
    const [row] = await this.tx.$queryRaw<EndedRow[]>`
      UPDATE turns SET status = ${ending.status}, reply_text = ${ending.replyText}, reply_model = ${ending.replyModel},
                       error = ${ending.error}, in_flight = '', pending_questions = '[]'::jsonb, lease_until = NULL,
                       ended_at = ${at(now)}::timestamp(3)
       WHERE id = ${turnId} AND runner_id = ${runnerId} AND status IN ('running', 'waiting_for_answer')
      RETURNING id, session_id, message_id, sender_session_id`;
    return row === undefined ? undefined : toEndedTurn(row);
  }

  async endExpiredTurn(turnId: string, ending: TurnEnding, now: Date): Promise<EndedTurn | undefined> {
    const [row] = await this.tx.$queryRaw<EndedRow[]>`
      UPDATE turns SET status = ${ending.status}, error = ${ending.error}, in_flight = '', pending_questions = '[]'::jsonb,
                       lease_until = NULL, ended_at = ${at(now)}::timestamp(3)
       WHERE id = ${turnId} AND status IN ('running', 'waiting_for_answer') AND resume_point IS NULL
         AND (lease_until IS NULL OR lease_until < ${at(now)}::timestamp(3))
      RETURNING id, session_id, message_id, sender_session_id`;
    return row === undefined ? undefined : toEndedTurn(row);
  }

  async takeOverTurn(turnId: string, runnerId: string, now: Date, leaseUntil: Date): Promise<ClaimedTurn | undefined> {
    const [row] = await this.tx.$queryRaw<TakenOverRow[]>`
      UPDATE turns t SET runner_id = ${runnerId}, lease_until = ${at(leaseUntil)}::timestamp(3)
        FROM sessions s, messages m
       WHERE t.id = ${turnId} AND s.id = t.session_id AND m.id = t.message_id
         AND t.status IN ('running', 'waiting_for_answer') AND t.resume_point IS NOT NULL
         AND (t.lease_until IS NULL OR t.lease_until < ${at(now)}::timestamp(3))
      RETURNING t.id, t.message_id, t.mode, t.trace_parent, t.started_at, t.resume_point, m.text,
                s.id AS session_id, s.user_id, s.title, s.provider, s.model, s.effort, s.mode AS session_mode, s.cwd,
                s.repo, s.branch, s.auto_compact_window, s.thinking_enabled, s.thinking_display`;
    if (row === undefined) return undefined;
    return {
      turnId: row.id,
      messageId: row.message_id,
      text: row.text,
      mode: row.mode as RelayMode,
      startedAt: row.started_at,
      traceParent: row.trace_parent,
      session: toRunnableSession(row),
      resume: row.resume_point,
    };
  }

  async countUnfinishedTurns(sessionId: string): Promise<number> {
    return this.tx.turn.count({ where: { sessionId, status: { in: ['queued', 'running', 'waiting_for_answer'] } } });
  }

  async updateSession(sessionId: string, change: { state: 'running_turn' | 'idle'; lastActivityAt: Date; newMessages: number }): Promise<void> {
    await this.tx.session.update({
      where: { id: sessionId },
      data: {
        state: change.state,
        lastActivityAt: change.lastActivityAt,
        ...(change.newMessages > 0 ? { messageCount: { increment: change.newMessages } } : {}),
      },
    });
  }

  async appendMessage(message: Pick<Message, 'id' | 'sessionId' | 'role' | 'text' | 'model' | 'createdAt'>): Promise<void> {
    await this.tx.message.create({ data: message });
  }

  async lockRunningTurn(turnId: string, runnerId: string): Promise<RunningTurnRow | undefined> {
    const [row] = await this.tx.$queryRaw<{ session_id: string; user_id: string; pending_questions: unknown }[]>`
      SELECT t.session_id, s.user_id, t.pending_questions
        FROM turns t JOIN sessions s ON s.id = t.session_id
       WHERE t.id = ${turnId} AND t.runner_id = ${runnerId} AND t.status IN ('running', 'waiting_for_answer')
         FOR NO KEY UPDATE OF t`;
    if (row === undefined) return undefined;
    return { sessionId: row.session_id, userId: row.user_id, pendingQuestions: toPendingQuestions(row.pending_questions) };
  }

  async findRunningTurn(turnId: string, runnerId: string): Promise<Omit<RunningTurnRow, 'pendingQuestions'> | undefined> {
    const turn = await this.tx.turn.findFirst({
      where: { id: turnId, runnerId, status: { in: ['running', 'waiting_for_answer'] } },
      select: { sessionId: true, session: { select: { userId: true } } },
    });
    return turn === null ? undefined : { sessionId: turn.sessionId, userId: turn.session.userId };
  }

  async setQuestions(turnId: string, questions: readonly PendingQuestion[], status: 'running' | 'waiting_for_answer'): Promise<void> {
    await this.tx.turn.update({ where: { id: turnId }, data: { pendingQuestions: questions as unknown as Prisma.InputJsonValue, status } });
  }

  async recordEvent(event: TurnEvent): Promise<void> {
    await enqueue(this.tx, toOutboxEntry(this.api, event));
  }
}

function toRunnableSession(row: SessionColumns): RunnableSession {
  return {
    id: row.session_id,
    userId: row.user_id,
    title: row.title,
    provider: row.provider,
    model: row.model,
    effort: row.effort,
    mode: row.session_mode as RelayMode,
    cwd: row.cwd,
    repo: row.repo,
    branch: row.branch,
    autoCompactWindow: row.auto_compact_window,
    thinkingEnabled: row.thinking_enabled,
    thinkingDisplay: row.thinking_display,
  };
}

function toEndedTurn(row: EndedRow): EndedTurn {
  return { turnId: row.id, sessionId: row.session_id, messageId: row.message_id, senderSessionId: row.sender_session_id };
}

/** A turn event as its contract's message, keyed by its event id (the outbox id, Nats-Msg-Id). */
function toOutboxEntry(api: Api, event: TurnEvent): OutboxEntry {
  const id = { id: event.eventId };
  const base = { eventId: event.eventId, occurredAt: event.occurredAt, sessionId: event.sessionId, userId: event.userId };
  switch (event.type) {
    case 'turn_started':
      return outgoing(SessionEvents.TURN_STARTED, { ...base, turnId: event.turnId, messageId: event.messageId }, id);
    case 'turn_ended':
      return outgoing(
        SessionEvents.TURN_ENDED,
        {
          ...base,
          turnId: event.turnId,
          messageId: event.messageId,
          status: api.toTurnStatusMessage(event.status),
          text: event.text,
          senderSessionId: event.senderSessionId ?? '',
        },
        id,
      );
    case 'question_asked':
      return outgoing(SessionEvents.QUESTION_ASKED, { ...base, question: api.toPendingQuestion(event.question) }, id);
    case 'subagent_finished':
      return outgoing(
        SessionEvents.SUBAGENT_FINISHED,
        { ...base, turnId: event.turnId, description: event.description, status: event.status, summary: event.summary },
        id,
      );
    case 'turn_activity':
      return outgoing(SessionEvents.TURN_ACTIVITY, { ...base, turnId: event.turnId, lastActivityAt: event.lastActivityAt }, id);
  }
}
