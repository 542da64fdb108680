import { context, type Context } from '@opentelemetry/api';
import { enqueueAll, outgoing, type OutboxEntry } from '@relay/bus';
import { SchedulerCommands } from '@relay/proto/relay/bus-contracts';
import type { QueuePrompt } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { activeTraceParent, Attr, inNewTrace, linksTo } from '@relay/telemetry';
import type { DueSchedule, FiringCommand, FiringTransaction, QueuePromptCommand, ScheduleChange, ScheduleStore } from '../../app/ports.ts';
import { END_REASONS, type EndReason, type Provenance, type Schedule } from '../../domain/schedule.ts';
import { Prisma, type PrismaClient, type Schedule as ScheduleRow } from '../../generated/prisma/client.ts';

/** A schedule row's columns as toSchedule reads them: a firing pass reads its rows raw (no Prisma query compiler). */
const SCHEDULE_COLUMNS = Prisma.raw(
  `s.id, s.user_id AS "userId", s.title, s.text, s.target_session_id AS "targetSessionId", s.target_session_title AS "targetSessionTitle",
   s.setting_session_id AS "settingSessionId", s.setting_session_title AS "settingSessionTitle", s.at, s.every_minutes AS "everyMinutes",
   s.once, s.next_fire_at AS "nextFireAt", s.pending_fire_at AS "pendingFireAt", s.last_fired_at AS "lastFiredAt",
   s.fired_count AS "firedCount", s.skipped_count AS "skippedCount", s.held_for_approval AS "heldForApproval",
   s.held_since AS "heldSince", s.provenance, s.created_at AS "createdAt", s.ended_at AS "endedAt", s.end_reason AS "endReason",
   s.trace_parent AS "traceParent"`,
);

/**
 * The scheduler's store in its own PostgreSQL database. Due rows are claimed with
 * SELECT … FOR UPDATE SKIP LOCKED inside one interactive transaction, so two replicas never take the
 * same row, and a replica that dies mid-firing rolls its transaction back and loses nothing.
 */
/** The active schedules a new one's limits count: those firing into its target or set by its setter. */
function countedAgainst(request: { targetSessionId: string; settingSessionId: string }) {
  return { endedAt: null, OR: [{ targetSessionId: request.targetSessionId }, { settingSessionId: request.settingSessionId }] };
}

export class PrismaScheduleStore implements ScheduleStore {
  constructor(private readonly prisma: PrismaClient) {}

  firingTransaction<T>(work: (tx: FiringTransaction) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(new PrismaFiringTransaction(tx)));
  }

  async create(request: { targetSessionId: string; settingSessionId: string }, plan: (active: Schedule[]) => Schedule): Promise<Schedule> {
    return this.prisma.$transaction(async (tx) => {
      // Serialises the limit checks of everything that counts against the same two conversations.
      for (const key of [...new Set([request.targetSessionId, request.settingSessionId])].sort()) {
        await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `schedules:${key}`);
      }
      const active = await tx.schedule.findMany({ where: countedAgainst(request) });
      const schedule = plan(active.map(toSchedule));
      // Its firings, each a trace of its own, link back to the call that set it.
      await tx.schedule.create({ data: { ...toRow(schedule), traceParent: activeTraceParent() } });
      return schedule;
    });
  }

  async activeAgainst(request: { targetSessionId: string; settingSessionId: string }): Promise<Schedule[]> {
    return (await this.prisma.schedule.findMany({ where: countedAgainst(request) })).map(toSchedule);
  }

  async list(userId: string, sessionId: string, endedSince: Date, limit: number): Promise<Schedule[]> {
    const shown = { OR: [{ endedAt: null }, { endedAt: { gte: endedSince } }] };
    const where = sessionId === '' ? { userId, ...shown } : { userId, AND: [shown, { OR: [{ targetSessionId: sessionId }, { settingSessionId: sessionId }] }] };
    const rows = await this.prisma.schedule.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit });
    return rows.map(toSchedule);
  }

  async find(scheduleId: string): Promise<Schedule | undefined> {
    const row = await this.prisma.schedule.findUnique({ where: { id: scheduleId } });
    return row === null ? undefined : toSchedule(row);
  }

  async endIfActive(scheduleId: string, reason: EndReason, now: Date): Promise<Schedule | undefined> {
    const { count } = await this.prisma.schedule.updateMany({
      where: { id: scheduleId, endedAt: null },
      data: { endedAt: now, endReason: reason, pendingFireAt: null, heldForApproval: false, heldSince: null },
    });
    return count === 0 ? undefined : this.find(scheduleId);
  }

  async endForSession(sessionId: string, reason: EndReason, now: Date): Promise<number> {
    const { count } = await this.prisma.schedule.updateMany({
      where: { endedAt: null, OR: [{ targetSessionId: sessionId }, { settingSessionId: sessionId }] },
      data: { endedAt: now, endReason: reason, pendingFireAt: null, heldForApproval: false, heldSince: null },
    });
    return count;
  }

  async endForUser(userId: string, reason: EndReason, now: Date): Promise<number> {
    const { count } = await this.prisma.schedule.updateMany({
      where: { endedAt: null, userId },
      data: { endedAt: now, endReason: reason, pendingFireAt: null, heldForApproval: false, heldSince: null },
    });
    return count;
  }

  async earliestDue(): Promise<Date | undefined> {
    const row = await this.prisma.schedule.findFirst({ where: { endedAt: null }, orderBy: { nextFireAt: 'asc' }, select: { nextFireAt: true } });
    return row?.nextFireAt;
  }

  async markFiringTaken(firingId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.firing.updateMany({ where: { id: firingId, takenAt: null }, data: { takenAt: now } });
    return count > 0;
  }
}

class PrismaFiringTransaction implements FiringTransaction {
  // The traceparent each claimed schedule was set with: its firings link to it.
  readonly #setWith = new Map<string, string | null>();
  // The trace each firing was decided in (traceFiring): its command continues it.
  readonly #firingTrace = new Map<string, Context>();

  constructor(private readonly tx: Prisma.TransactionClient) {}

  async claimDue(now: Date, limit: number): Promise<DueSchedule[]> {
    const claimed = await this.tx.$queryRaw<(ScheduleRow & { waits: boolean })[]>`
      SELECT ${SCHEDULE_COLUMNS},
             EXISTS (SELECT 1 FROM firings f WHERE f.schedule_id = s.id AND f.taken_at IS NULL) AS waits
        FROM schedules s
       WHERE s.ended_at IS NULL AND s.next_fire_at <= ${now.toISOString()}::timestamp(3)
       ORDER BY s.next_fire_at, s.id
       LIMIT ${limit}
         FOR UPDATE OF s SKIP LOCKED`;
    return claimed.map(({ waits, ...row }) => {
      this.#setWith.set(row.id, row.traceParent);
      return { schedule: toSchedule(row), previousStillWaits: waits };
    });
  }

  async traceFiring<T>(scheduleId: string, firingId: string, run: () => Promise<T>): Promise<T> {
    const attributes = { [Attr.SCHEDULE_ID]: scheduleId, [Attr.FIRING_ID]: firingId };
    // The firing loop runs outside any trace: a firing starts one, linked to the call that set the schedule.
    return inNewTrace('scheduler', 'schedule firing', { attributes, links: linksTo([this.#setWith.get(scheduleId)]) }, async () => {
      this.#firingTrace.set(firingId, context.active());
      return run();
    });
  }

  async save(updates: readonly ScheduleChange[], firings: readonly FiringCommand[]): Promise<void> {
    if (firings.length > 0) {
      const commands: OutboxEntry[] = [];
      for (const { firing, command } of firings) {
        const attributes = { [Attr.SCHEDULE_ID]: firing.scheduleId, [Attr.FIRING_ID]: firing.id };
        const decided = this.#firingTrace.get(firing.id);
        if (decided !== undefined) {
          commands.push(outgoing(SchedulerCommands.QUEUE_PROMPT, toQueuePrompt(command), { id: firing.id, trace: decided }));
          continue;
        }
        // The firing loop runs outside any trace: a firing starts one, linked to the call that set the schedule.
        await inNewTrace('scheduler', 'schedule firing', { attributes, links: linksTo([this.#setWith.get(firing.scheduleId)]) }, async () => {
          commands.push(outgoing(SchedulerCommands.QUEUE_PROMPT, toQueuePrompt(command), { id: firing.id, trace: context.active() }));
        });
      }
      await enqueueAll(this.tx, commands);
    }
    if (updates.length === 0 && firings.length === 0) return;
    const rows = updates.map(({ scheduleId, update }) => ({
      id: scheduleId,
      next_fire_at: update.nextFireAt.toISOString(),
      pending_fire_at: update.pendingFireAt?.toISOString() ?? null,
      last_fired_at: update.lastFiredAt?.toISOString() ?? null,
      fired_count: update.firedCount,
      skipped_count: update.skippedCount,
      held_for_approval: update.heldForApproval,
      held_since: update.heldSince?.toISOString() ?? null,
      ended_at: update.endedAt?.toISOString() ?? null,
      end_reason: update.endReason,
    }));
    const fired = firings.map(({ firing }) => ({
      id: firing.id,
      schedule_id: firing.scheduleId,
      due_at: firing.dueAt.toISOString(),
      fired_at: firing.firedAt.toISOString(),
    }));
    // The firings and the schedules' updates in one statement (a firing's schedule exists: it is locked).
    await this.tx.$executeRaw`WITH firings_made AS (
        INSERT INTO firings (id, schedule_id, due_at, fired_at)
        SELECT r.id, r.schedule_id, r.due_at, r.fired_at FROM jsonb_to_recordset(${JSON.stringify(fired)}::jsonb) AS r(id text, schedule_id text, due_at timestamp(3), fired_at timestamp(3)))
      UPDATE schedules AS s
        SET next_fire_at = r.next_fire_at, pending_fire_at = r.pending_fire_at, last_fired_at = r.last_fired_at,
            fired_count = r.fired_count, skipped_count = r.skipped_count, held_for_approval = r.held_for_approval,
            held_since = r.held_since, ended_at = r.ended_at, end_reason = r.end_reason
       FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
         AS r(id text, next_fire_at timestamp(3), pending_fire_at timestamp(3), last_fired_at timestamp(3), fired_count int,
              skipped_count int, held_for_approval boolean, held_since timestamp(3), ended_at timestamp(3), end_reason text)
      WHERE s.id = r.id`;
  }
}

function toRow(schedule: Schedule): Prisma.ScheduleCreateInput {
  return { ...schedule, provenance: schedule.provenance as unknown as Prisma.InputJsonValue };
}

function toSchedule(row: ScheduleRow): Schedule {
  const endReason = END_REASONS.find((reason) => reason === row.endReason) ?? null;
  const { traceParent: _traceParent, ...fields } = row;
  return { ...fields, provenance: row.provenance as unknown as Provenance, endReason };
}

/** A firing's command as relay.scheduler.v1.QueuePrompt. */
function toQueuePrompt(command: QueuePromptCommand): QueuePrompt {
  return { ...command, dueAt: new Date(command.dueAt), provenance: { ...command.provenance, viaRelays: command.provenance.viaRelays ?? [] } };
}
