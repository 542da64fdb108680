/**
 * list_schedules: the schedules that fire into the calling conversation or that it set, the active ones
 * and those that ended in the last hour (with endReason). Schedules live on this relay only.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { GRID_NOTE, scheduleView } from '../../views/schedule-view.ts';
import { scheduleRelay } from '../schedule-relay.ts';

export const listSchedules = defineAction({
  name: 'list_schedules',
  args: argumentsOf('relay'),
  relay: 'optional',
  write: false,
  inboxBlind: true,
  handler: runListSchedules,
});

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
