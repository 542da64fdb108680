/** A schedule as the agent and the user API see it (list_schedules, schedule, unschedule, the ⏰ list). */
import type { Schedule } from '@relay/proto/relay/scheduler/v1/scheduler_service';

/** How much of a schedule's text a listing shows. */
const TEXT_START = 200;

/** Said wherever repeats are listed: the grid does not follow local clock changes. */
export const GRID_NOTE =
  'Repeats keep to a grid of whole minutes in UTC (the first time plus whole intervals); they do not follow daylight-saving changes, so a daily 02:00 winter schedule fires at 03:00 local time in summer. A held firing (heldFireAt) goes once when allowed; grid times that pass while it is held collapse into it.';

/**
 * A schedule as list_schedules, unschedule and the ⏰ list show it; setBy when another conversation set it. A held one
 * shows the held firing (heldSince, heldFireAt: the grid time it stands for) and as nextFireAt the next grid time.
 */
export function scheduleView(schedule: Schedule) {
  const text = schedule.text.length > TEXT_START ? `${schedule.text.slice(0, TEXT_START)}…` : schedule.text;
  const session = { id: schedule.targetSessionId, title: schedule.targetSessionTitle };
  return {
    id: schedule.id,
    session,
    ...(schedule.settingSessionId !== schedule.targetSessionId ? { setBy: { id: schedule.settingSessionId, title: schedule.settingSessionTitle } } : {}),
    title: schedule.title,
    text,
    at: isoOf(schedule.at),
    everyMinutes: schedule.everyMinutes,
    once: schedule.once,
    nextFireAt: schedule.endedAt ? null : isoOf(schedule.nextFireAt),
    lastFiredAt: schedule.lastFiredAt?.toISOString() ?? null,
    firedCount: schedule.firedCount,
    ...(schedule.skippedCount > 0 ? { skippedCount: schedule.skippedCount } : {}),
    ...(schedule.heldForApproval
      ? { heldForApproval: true as const, heldSince: schedule.heldSince?.toISOString() ?? null, heldFireAt: schedule.heldFireAt?.toISOString() ?? null }
      : {}),
    ...(schedule.endedAt ? { endedAt: schedule.endedAt.toISOString(), endReason: schedule.endReason } : {}),
  };
}

/** A time every schedule has (its first time, its next firing); the epoch should a scheduler ever leave it out. */
export function isoOf(time: Date | undefined): string {
  return (time ?? new Date(0)).toISOString();
}
