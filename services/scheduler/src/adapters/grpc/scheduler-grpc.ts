import type { Clock } from '@relay/clock';
import type { Schedule as ScheduleMessage, SchedulerServiceServer } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import { serveUnary } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { createSchedule, endSchedule, listSchedules, type ScheduleDeps } from '../../app/schedule-actions.ts';
import { shownTimes, type Schedule } from '../../domain/schedule.ts';

/** The generated server interface without grpc-js's index signature. */
type Methods = { [K in keyof SchedulerServiceServer as string extends K ? never : K]: SchedulerServiceServer[K] };

/** relay.scheduler.v1.SchedulerService; `changed` tells the firing loop to look again. */
export function schedulerGrpc(deps: ScheduleDeps & { clock: Clock; logger: Logger; changed: () => void }): ReturnType<typeof serveUnary> {
  return serveUnary<Methods>(deps.logger, {
    createSchedule: async (request) => {
      const schedule = await createSchedule(
        deps,
        {
          userId: request.userId,
          settingSessionId: request.settingSessionId,
          settingSessionTitle: request.settingSessionTitle,
          targetSessionId: request.targetSessionId,
          targetSessionTitle: request.targetSessionTitle,
          title: request.title,
          text: request.text,
          at: request.at,
          everyMinutes: request.everyMinutes,
          provenance: {
            originRelay: request.provenance?.originRelay ?? '',
            originSessionId: request.provenance?.originSessionId ?? request.settingSessionId,
            originSessionTitle: request.provenance?.originSessionTitle ?? request.settingSessionTitle,
            model: request.provenance?.model ?? '',
            hops: request.provenance?.hops ?? 0,
            viaRelays: [...(request.provenance?.viaRelays ?? [])],
          },
        },
        deps.clock.now(),
        request.dryRun,
      );
      if (schedule) deps.changed();
      return { schedule: schedule ? toMessage(schedule, deps.clock.now()) : undefined };
    },
    listSchedules: async (request) => {
      const now = deps.clock.now();
      const { schedules, more } = await listSchedules(deps.store, request.userId, request.sessionId, now);
      return { schedules: schedules.map((schedule) => toMessage(schedule, now)), more };
    },
    endSchedule: async (request) => {
      const now = deps.clock.now();
      const schedule = await endSchedule(deps.store, request, now);
      deps.changed();
      return { schedule: toMessage(schedule, now) };
    },
  });
}

/** A schedule on the wire at `now`: its times as a person reads them (shownTimes). */
export function toMessage(schedule: Schedule, now: Date): ScheduleMessage {
  const { nextFireAt, heldFireAt } = shownTimes(schedule, now);
  return {
    id: schedule.id,
    userId: schedule.userId,
    title: schedule.title,
    text: schedule.text,
    targetSessionId: schedule.targetSessionId,
    targetSessionTitle: schedule.targetSessionTitle,
    settingSessionId: schedule.settingSessionId,
    settingSessionTitle: schedule.settingSessionTitle,
    at: schedule.at,
    everyMinutes: schedule.everyMinutes,
    once: schedule.once,
    nextFireAt: nextFireAt ?? schedule.nextFireAt,
    lastFiredAt: schedule.lastFiredAt ?? undefined,
    firedCount: schedule.firedCount,
    skippedCount: schedule.skippedCount,
    heldForApproval: schedule.heldForApproval,
    heldSince: schedule.heldSince ?? undefined,
    heldFireAt: heldFireAt ?? undefined,
    endedAt: schedule.endedAt ?? undefined,
    endReason: schedule.endReason ?? '',
  };
}
