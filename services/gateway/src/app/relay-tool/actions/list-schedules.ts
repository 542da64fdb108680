/**
 * list_schedules: the schedules that fire into the calling conversation or that it set, the active ones
 * and those that ended in the last hour (with endReason). Schedules live on this relay only.
 */
import type { Schedule } from '@relay/proto/relay/scheduler/v1/scheduler_service';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { requireAgentSessions } from '../../../domain/require-agent-sessions.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import type { SchedulerClient } from '../../ports.ts';

export const listSchedules = defineAction({
  name: 'list_schedules',
  args: argumentsOf('relay'),
  relay: 'optional',
  write: false,
  handler: runListSchedules,
});

/** How much of a schedule's text a listing shows. */
const TEXT_START = 200;

/** Said wherever repeats are listed: the grid does not follow local clock changes. */
export const GRID_NOTE =
  'Repeats keep to a grid of whole minutes in UTC (the first time plus whole intervals); they do not follow daylight-saving changes, so a daily 02:00 winter schedule fires at 03:00 local time in summer. A held firing (heldFireAt) goes once when allowed; grid times that pass while it is held collapse into it.';

/**
 * The relay schedules work on: this one. A paired relay answers REMOTE_RELAY_UNSUPPORTED, an unknown
 * name REMOTE_RELAY_UNKNOWN_RELAY; agent sessions must be on, even for the caller's own conversation.
 */
export function scheduleRelay(action: string, relay: string | undefined, context: ActionContext): { relay: string; scheduler: SchedulerClient } {
  const target = resolveRelay(relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    throw toolError('REMOTE_RELAY_UNSUPPORTED', `${action}: schedules work on this relay only; "${target.relay.name}" keeps no schedules for agents here. Leave out relay.`);
  }
  requireAgentSessions(context.settings);
  if (!context.schedules) throw toolError('REMOTE_RELAY_UNSUPPORTED', `${action} is not available on this relay yet.`);
  return { relay: target.name, scheduler: context.schedules };
}

/**
 * A schedule as list_schedules, unschedule and the ⏰ list show it; setBy when another conversation set it. A held one
 * shows the held firing (heldSince, heldFireAt: the grid time it stands for) and as nextFireAt the next grid time.
 */
export function scheduleView(schedule: Schedule): Record<string, unknown> {
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
      ? { heldForApproval: true, heldSince: schedule.heldSince?.toISOString() ?? null, heldFireAt: schedule.heldFireAt?.toISOString() ?? null }
      : {}),
    ...(schedule.endedAt ? { endedAt: schedule.endedAt.toISOString(), endReason: schedule.endReason } : {}),
  };
}

/** A time every schedule has (its first time, its next firing); the epoch should a scheduler ever leave it out. */
export function isoOf(time: Date | undefined): string {
  return (time ?? new Date(0)).toISOString();
}

async function runListSchedules(args: ToolArguments, context: ActionContext): Promise<Success> {
  const { relay, scheduler } = scheduleRelay('list_schedules', args.relay, context);
  const { schedules } = await scheduler.listSchedules({ userId: context.caller.userId, sessionId: context.caller.sessionId });
  const active = schedules.filter((schedule) => !schedule.endedAt).length;
  return success(
    `list_schedules → ${relay}: ${count(schedules.length, 'schedule')}, ${active} active`,
    { schedules: schedules.map(scheduleView), note: GRID_NOTE },
    relay,
  );
}
