import type { Schedule as ScheduleMessage, SchedulerServiceClient } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { callUnary } from '@relay/rpc';
import type { CreateScheduleInput, Schedule, SchedulerOwner } from '../scheduler-owner.ts';

const DEADLINE_MS = 10_000;

/** SchedulerOwner over gRPC (relay.scheduler.v1.SchedulerService). */
export class GrpcSchedulerOwner implements SchedulerOwner {
  constructor(private readonly client: SchedulerServiceClient) {}

  async createSchedule(input: CreateScheduleInput): Promise<Schedule | undefined> {
    const { schedule } = await callUnary(
      this.client,
      'createSchedule',
      {
        userId: input.userId,
        settingSessionId: input.setting.id,
        settingSessionTitle: input.setting.title,
        targetSessionId: input.target.id,
        targetSessionTitle: input.target.title,
        title: input.title,
        text: input.text,
        at: input.at,
        everyMinutes: input.everyMinutes,
        provenance: input.provenance,
        dryRun: input.dryRun,
      },
      { deadlineMs: DEADLINE_MS },
    );
    return schedule ? toSchedule(schedule) : undefined;
  }

  async listSchedules(userId: string, sessionId: string): Promise<Schedule[]> {
    const { schedules } = await callUnary(this.client, 'listSchedules', { userId, sessionId }, { deadlineMs: DEADLINE_MS });
    return schedules.map(toSchedule);
  }

  async endSchedule(userId: string, sessionId: string, scheduleId: string): Promise<Schedule> {
    const { schedule } = await callUnary(this.client, 'endSchedule', { userId, sessionId, scheduleId }, { deadlineMs: DEADLINE_MS });
    if (!schedule) throw new Error('EndSchedule answered no schedule');
    return toSchedule(schedule);
  }
}

function toSchedule(message: ScheduleMessage): Schedule {
  return {
    id: message.id,
    title: message.title,
    text: message.text,
    target: { id: message.targetSessionId, title: message.targetSessionTitle },
    setting: { id: message.settingSessionId, title: message.settingSessionTitle },
    at: message.at ?? new Date(0),
    everyMinutes: message.everyMinutes,
    once: message.once,
    nextFireAt: message.nextFireAt ?? new Date(0),
    lastFiredAt: message.lastFiredAt,
    firedCount: message.firedCount,
    skippedCount: message.skippedCount,
    heldForApproval: message.heldForApproval,
    heldSince: message.heldSince,
    heldFireAt: message.heldFireAt,
    endedAt: message.endedAt,
    endReason: message.endReason,
  };
}
