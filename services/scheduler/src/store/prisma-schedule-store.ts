import { enqueue } from '@relay/bus';
import { activeTraceParent, Attr, inNewTrace, linksTo } from '@relay/telemetry';
import type { Firing, ScheduleUpdate } from '../domain/firing.ts';
import type { DueSchedule, FiringTransaction, QueuePromptCommand, ScheduleStore } from '../domain/ports.ts';
import { END_REASONS, type EndReason, type Provenance, type Schedule } from '../domain/schedule.ts';
import { SchedulerSubject } from '../bus/scheduler-commands.ts';
import type { Prisma, PrismaClient, Schedule as ScheduleRow } from '../generated/prisma/client.ts';

/**
 * The scheduler's store in its own PostgreSQL database. Due rows are claimed with
 * SELECT … FOR UPDATE SKIP LOCKED inside one interactive transaction, so two replicas never take the
 * same row, and a replica that dies mid-firing rolls its transaction back and loses nothing.
 */
export class PrismaScheduleStore implements ScheduleStore {
  constructor(private readonly prisma: PrismaClient) {}

  firingTransaction<T>(work: (tx: FiringTransaction) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(new PrismaFiringTransaction(tx)));
  }

  async create(plan: (counts: { firingIntoTarget: number; setBySetterForOthers: number }) => Schedule): Promise<Schedule> {
    return this.prisma.$transaction(async (tx) => {
      // Serialises the limit checks of everything that counts against the same two conversations.
      const probe = plan({ firingIntoTarget: 0, setBySetterForOthers: 0 });
      for (const key of [...new Set([probe.targetSessionId, probe.settingSessionId])].sort()) {
        await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `schedules:${key}`);
      }
      const firingIntoTarget = await tx.schedule.count({ where: { targetSessionId: probe.targetSessionId, endedAt: null } });
      const forOthers = await tx.schedule.findMany({ where: { settingSessionId: probe.settingSessionId, endedAt: null }, select: { targetSessionId: true } });
      const setBySetterForOthers = forOthers.filter((row) => row.targetSessionId !== probe.settingSessionId).length;
      const schedule = plan({ firingIntoTarget, setBySetterForOthers });
      // Its firings, each a trace of its own, link back to the call that set it.
      await tx.schedule.create({ data: { ...toRow(schedule), traceParent: activeTraceParent() } });
      return schedule;
    });
  }

  async list(userId: string, sessionId: string): Promise<Schedule[]> {
    const where = sessionId === '' ? { userId } : { userId, OR: [{ targetSessionId: sessionId }, { settingSessionId: sessionId }] };
    const rows = await this.prisma.schedule.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
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
  constructor(private readonly tx: Prisma.TransactionClient) {}

  async claimDue(now: Date, limit: number): Promise<DueSchedule[]> {
    const claimed = await this.tx.$queryRawUnsafe<{ id: string; waits: boolean }[]>(
      `SELECT s."id",
              EXISTS (SELECT 1 FROM "firings" f WHERE f."schedule_id" = s."id" AND f."taken_at" IS NULL) AS "waits"
         FROM "schedules" s
        WHERE s."ended_at" IS NULL AND s."next_fire_at" <= $1::timestamp(3)
        ORDER BY s."next_fire_at", s."id"
        LIMIT $2
          FOR UPDATE OF s SKIP LOCKED`,
      now.toISOString(),
      limit,
    );
    if (claimed.length === 0) return [];
    const rows = await this.tx.schedule.findMany({ where: { id: { in: claimed.map((row) => row.id) } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return claimed.flatMap((row) => {
      const found = byId.get(row.id);
      return found ? [{ schedule: toSchedule(found), previousStillWaits: row.waits }] : [];
    });
  }

  async update(scheduleId: string, update: ScheduleUpdate): Promise<void> {
    await this.tx.schedule.update({ where: { id: scheduleId }, data: update });
  }

  async recordFiring(firing: Firing, command: QueuePromptCommand): Promise<void> {
    const setBy = await this.tx.schedule.findUnique({ where: { id: firing.scheduleId }, select: { traceParent: true } });
    const attributes = { [Attr.SCHEDULE_ID]: firing.scheduleId, [Attr.FIRING_ID]: firing.id };
    // The firing loop runs outside any trace: a firing starts one, linked to the call that set the schedule.
    await inNewTrace('scheduler', 'schedule firing', { attributes, links: linksTo([setBy?.traceParent]) }, async () => {
      await this.tx.firing.create({ data: firing });
      await enqueue(this.tx, { subject: SchedulerSubject.QUEUE_PROMPT, payload: command, id: firing.id });
    });
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
