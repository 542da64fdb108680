import { randomUUID } from 'node:crypto';
import { enqueue, outgoing, type OutboxEntry } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import { inTraceOf } from '@relay/telemetry';
import type { RelayMode } from '../../domain/sessions/session.ts';
import type { PendingQuestion, Turn } from '../../domain/turns/turn.ts';
import type { ApiToken } from '../../domain/users/user.ts';
import {
  activeStatusFor,
  endTurnAs,
  planClaim,
  sessionStateFor,
  turnEndedText,
  withoutQuestion,
  withQuestion,
  type TurnEnding,
} from '../../domain/turns/turn-rules.ts';
import type { ClaimResult, SubagentFinished, TurnStore } from '../../app/turns/turn-store.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import type { ApiMessages } from './outbox-events.ts';
import { toPendingQuestions, toTurn } from './turn-row.ts';

type Tx = Prisma.TransactionClient;

type CandidateRow = {
  id: string;
  message_id: string;
  mode: string;
  stop_requested: boolean;
  sender_session_id: string | null;
  trace_parent: string | null;
  session_id: string;
  user_id: string;
  title: string;
  provider: string;
  model: string;
  effort: string;
  session_mode: string;
  cwd: string;
  archived: boolean;
  auto_compact_window: string;
  thinking_enabled: boolean;
  thinking_display: string;
  text: string;
};

type EndedRow = { id: string; session_id: string; message_id: string; sender_session_id: string | null };

/** The store's view of "now": timestamp(3) columns hold UTC, so instants travel as ISO text cast to timestamp. */
function at(instant: Date): string {
  return instant.toISOString();
}

/**
 * The turn runtime's store in the session service's database. The turns table is the work queue:
 * a claim is `SELECT … FOR NO KEY UPDATE SKIP LOCKED` in an interactive transaction, so replicas
 * never take the same turn and never wait for each other's claims. Locks are taken session row
 * first, then turn rows, everywhere a transaction waits for one, so two of them cannot deadlock.
 */
export class PrismaTurnStore implements TurnStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly api: Pick<ApiMessages, 'toPendingQuestion' | 'toTurnStatusMessage'>,
  ) {}

  async claimNext(options: { runnerId: string; now: Date; canRun: (provider: string) => boolean; leaseMs: number; held?: readonly string[] }): Promise<ClaimResult | undefined> {
    const held = [...(options.held ?? [])];
    return this.prisma.$transaction(async (tx) => {
      // The oldest queued turn of a session with no running or waiting turn. A turn queued before it in
      // the same session, even one another runner is claiming right now, keeps it out, and SKIP LOCKED
      // passes over rows (turn or session) another transaction holds instead of waiting for them.
      // Turns of a provider a usage limit holds stay queued, passed over, until the pause ends.
      const [row] = await tx.$queryRaw<CandidateRow[]>`
        SELECT t.id, t.message_id, t.mode, t.stop_requested, t.sender_session_id, t.trace_parent,
               s.id AS session_id, s.user_id, s.title, s.provider, s.model, s.effort, s.mode AS session_mode, s.cwd, s.archived,
               s.auto_compact_window, s.thinking_enabled, s.thinking_display,
               m.text
          FROM turns t
          JOIN sessions s ON s.id = t.session_id
          JOIN messages m ON m.id = t.message_id
         WHERE t.status = 'queued'
           AND s.provider <> ALL(${held}::text[])
           AND NOT EXISTS (SELECT 1 FROM turns a WHERE a.session_id = t.session_id AND a.status IN ('running', 'waiting_for_answer'))
           AND NOT EXISTS (SELECT 1 FROM turns e WHERE e.session_id = t.session_id AND e.status = 'queued'
                                                   AND (e.queued_at, e.id) < (t.queued_at, t.id))
         ORDER BY t.queued_at, t.id
         LIMIT 1
           FOR NO KEY UPDATE OF t, s SKIP LOCKED`;
      if (row === undefined) return undefined;

      const plan = planClaim(
        { stopRequested: row.stop_requested, sessionArchived: row.archived, provider: row.provider },
        { now: options.now, canRun: options.canRun, leaseMs: options.leaseMs },
      );
      if (plan.kind === 'end') {
        await tx.$executeRaw`
          UPDATE turns SET status = ${plan.ending.status}, error = ${plan.ending.error}, runner_id = ${options.runnerId},
                           started_at = ${at(options.now)}::timestamp(3), ended_at = ${at(options.now)}::timestamp(3)
           WHERE id = ${row.id}`;
        const ended = { id: row.id, session_id: row.session_id, message_id: row.message_id, sender_session_id: row.sender_session_id };
        await inTraceOf(row.trace_parent, () => finishTurn(this.api, tx, ended, row.user_id, plan.ending, options.now));
        return { kind: 'ended', turnId: row.id };
      }

      await tx.$executeRaw`
        UPDATE turns SET status = 'running', runner_id = ${options.runnerId}, lease_until = ${at(plan.leaseUntil)}::timestamp(3),
                         started_at = ${at(plan.startedAt)}::timestamp(3)
         WHERE id = ${row.id}`;
      await tx.session.update({ where: { id: row.session_id }, data: { state: 'running_turn', lastActivityAt: options.now } });
      const eventId = randomUUID();
      // The runner claims outside any trace: the turn's start is announced in the trace of the call that queued it.
      await inTraceOf(row.trace_parent, () =>
        enqueue(
          tx,
          SessionEvents.TURN_STARTED,
          { eventId, occurredAt: options.now, sessionId: row.session_id, userId: row.user_id, turnId: row.id, messageId: row.message_id },
          { id: eventId },
        ),
      );
      return {
        kind: 'run',
        claimed: {
          turnId: row.id,
          messageId: row.message_id,
          text: row.text,
          traceParent: row.trace_parent,
          mode: row.mode as RelayMode,
          startedAt: plan.startedAt,
          session: {
            id: row.session_id,
            userId: row.user_id,
            title: row.title,
            provider: row.provider,
            model: row.model,
            effort: row.effort,
            mode: row.session_mode as RelayMode,
            cwd: row.cwd,
            autoCompactWindow: row.auto_compact_window,
            thinkingEnabled: row.thinking_enabled,
            thinkingDisplay: row.thinking_display,
          },
        },
      };
    });
  }

  async renewLease(turnId: string, runnerId: string, leaseUntil: Date): Promise<boolean> {
    const renewed = await this.prisma.$executeRaw`
      UPDATE turns SET lease_until = ${at(leaseUntil)}::timestamp(3)
       WHERE id = ${turnId} AND runner_id = ${runnerId} AND status IN ('running', 'waiting_for_answer')`;
    return renewed === 1;
  }

  async endExpiredLeases(now: Date, alive: ReadonlySet<string>): Promise<string[]> {
    const expired = await this.prisma.$queryRaw<{ id: string; session_id: string }[]>`
      SELECT id, session_id FROM turns
       WHERE status IN ('running', 'waiting_for_answer') AND (lease_until IS NULL OR lease_until < ${at(now)}::timestamp(3))
       ORDER BY lease_until
       LIMIT 100`;
    const ending = endTurnAs({ kind: 'relay_stopped' });
    const ended: string[] = [];
    for (const candidate of expired.filter((turn) => !alive.has(turn.id))) {
      const done = await this.prisma.$transaction(async (tx) => {
        const userId = await lockSession(tx, candidate.session_id);
        // Checked again under the lock: the runner may have renewed or ended it since the look.
        const [row] = await tx.$queryRaw<EndedRow[]>`
          UPDATE turns SET status = 'error', error = ${ending.error}, in_flight = '', pending_questions = '[]'::jsonb,
                           lease_until = NULL, ended_at = ${at(now)}::timestamp(3)
           WHERE id = ${candidate.id} AND status IN ('running', 'waiting_for_answer')
             AND (lease_until IS NULL OR lease_until < ${at(now)}::timestamp(3))
          RETURNING id, session_id, message_id, sender_session_id`;
        if (row === undefined || userId === undefined) return false;
        await finishTurn(this.api, tx, row, userId, ending, now);
        return true;
      });
      if (done) ended.push(candidate.id);
    }
    return ended;
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

  async raiseQuestion(turnId: string, runnerId: string, question: PendingQuestion, now: Date): Promise<void> {
    await this.#changeQuestions(turnId, runnerId, (questions) => withQuestion(questions, question), async (tx, turn) => {
      const eventId = randomUUID();
      await enqueue(
        tx,
        SessionEvents.QUESTION_ASKED,
        { eventId, occurredAt: now, sessionId: turn.sessionId, userId: turn.userId, question: this.api.toPendingQuestion(question) },
        { id: eventId },
      );
    });
  }

  async recordSubagentFinished(turnId: string, runnerId: string, subagent: SubagentFinished, now: Date): Promise<void> {
    await this.#publishForRunningTurn(turnId, runnerId, now, (base) => outgoing(SessionEvents.SUBAGENT_FINISHED, { ...base, ...subagent }, { id: base.eventId }));
  }

  async recordTurnActivity(turnId: string, runnerId: string, now: Date): Promise<void> {
    await this.#publishForRunningTurn(turnId, runnerId, now, (base) => outgoing(SessionEvents.TURN_ACTIVITY, { ...base, lastActivityAt: now }, { id: base.eventId }));
  }

  /** Enqueues the event `build` makes of the turn's fields, while the turn runs and is this runner's. */
  async #publishForRunningTurn(
    turnId: string,
    runnerId: string,
    now: Date,
    build: (base: { eventId: string; occurredAt: Date; sessionId: string; userId: string; turnId: string }) => OutboxEntry,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const turn = await tx.turn.findFirst({
        where: { id: turnId, runnerId, status: { in: ['running', 'waiting_for_answer'] } },
        select: { sessionId: true, session: { select: { userId: true } } },
      });
      if (turn === null) return;
      const eventId = randomUUID();
      await enqueue(tx, build({ eventId, occurredAt: now, sessionId: turn.sessionId, userId: turn.session.userId, turnId }));
    });
  }

  async settleQuestion(turnId: string, runnerId: string, questionId: string): Promise<void> {
    await this.#changeQuestions(turnId, runnerId, (questions) => withoutQuestion(questions, questionId));
  }

  async endTurn(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const owner = await tx.turn.findUnique({ where: { id: turnId }, select: { sessionId: true } });
      if (owner === null) return false;
      const userId = await lockSession(tx, owner.sessionId);
      const [row] = await tx.$queryRaw<EndedRow[]>`
        UPDATE turns SET status = ${ending.status}, reply_text = ${ending.replyText}, reply_model = ${ending.replyModel},
                         error = ${ending.error}, in_flight = '', pending_questions = '[]'::jsonb, lease_until = NULL,
                         ended_at = ${at(now)}::timestamp(3)
         WHERE id = ${turnId} AND runner_id = ${runnerId} AND status IN ('running', 'waiting_for_answer')
        RETURNING id, session_id, message_id, sender_session_id`;
      if (row === undefined || userId === undefined) return false;
      await finishTurn(this.api, tx, row, userId, ending, now);
      return true;
    });
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

  /** Changes a running turn's pending questions under its row lock, and its status with them. */
  async #changeQuestions(
    turnId: string,
    runnerId: string,
    change: (questions: PendingQuestion[]) => PendingQuestion[],
    alsoInTransaction?: (tx: Tx, turn: { sessionId: string; userId: string }) => Promise<void>,
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ session_id: string; user_id: string; pending_questions: unknown }[]>`
        SELECT t.session_id, s.user_id, t.pending_questions
          FROM turns t JOIN sessions s ON s.id = t.session_id
         WHERE t.id = ${turnId} AND t.runner_id = ${runnerId} AND t.status IN ('running', 'waiting_for_answer')
           FOR NO KEY UPDATE OF t`;
      if (row === undefined) return;
      const questions = change(toPendingQuestions(row.pending_questions));
      await tx.turn.update({
        where: { id: turnId },
        data: { pendingQuestions: questions as unknown as Prisma.InputJsonValue, status: activeStatusFor(questions) },
      });
      await alsoInTransaction?.(tx, { sessionId: row.session_id, userId: row.user_id });
    });
  }
}

/** Locks the session row (always before any turn row) and returns its user, or undefined when it is gone. */
async function lockSession(tx: Tx, sessionId: string): Promise<string | undefined> {
  const [row] = await tx.$queryRaw<{ user_id: string }[]>`SELECT user_id FROM sessions WHERE id = ${sessionId} FOR NO KEY UPDATE`;
  return row?.user_id;
}

/**
 * What follows a turn's end in its transaction: the reply as an assistant message, the session's
 * state (idle once nothing is queued or running), and turn_ended. The session row is locked, so a
 * message queued concurrently either counts here or sets running_turn after this commits.
 */
async function finishTurn(api: Pick<ApiMessages, 'toTurnStatusMessage'>, tx: Tx, row: EndedRow, userId: string, ending: TurnEnding, now: Date): Promise<void> {
  if (ending.status === 'done') {
    await tx.message.create({
      data: { id: randomUUID(), sessionId: row.session_id, role: 'assistant', text: ending.replyText, model: ending.replyModel, createdAt: now },
    });
  }
  const unfinished = await tx.turn.count({ where: { sessionId: row.session_id, status: { in: ['queued', 'running', 'waiting_for_answer'] } } });
  await tx.session.update({
    where: { id: row.session_id },
    data: {
      state: sessionStateFor(unfinished),
      lastActivityAt: now,
      ...(ending.status === 'done' ? { messageCount: { increment: 1 } } : {}),
    },
  });
  const eventId = randomUUID();
  await enqueue(
    tx,
    SessionEvents.TURN_ENDED,
    {
      eventId,
      occurredAt: now,
      sessionId: row.session_id,
      userId,
      turnId: row.id,
      messageId: row.message_id,
      status: api.toTurnStatusMessage(ending.status),
      text: turnEndedText(ending),
      senderSessionId: row.sender_session_id ?? '',
    },
    { id: eventId },
  );
}
