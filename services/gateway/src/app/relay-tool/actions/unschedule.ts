/**
 * unschedule: ends one schedule of the calling conversation, one that fires into it or that it set.
 * In the ask and plan modes the user allows it on a card first.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { toolError } from '../../../domain/errors.ts';
import { success, type Success } from '../../../domain/result.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';
import { scheduleView } from '../../views/schedule-view.ts';
import { scheduleRelay } from '../schedule-relay.ts';

export const unschedule = defineAction({
  name: 'unschedule',
  args: argumentsOf('relay', 'schedule_id'),
  relay: 'optional',
  write: true,
  handler: runUnschedule,
});

async function runUnschedule(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['schedule_id']);
  const { relay, scheduler } = scheduleRelay('unschedule', args.relay, context);
  const { caller, sessions } = context;

  const { schedules } = await scheduler.listSchedules({ userId: caller.userId, sessionId: caller.sessionId });
  const found = schedules.find((schedule) => schedule.id === args.schedule_id && !schedule.endedAt);
  if (!found) {
    throw toolError('REMOTE_RELAY_NOT_FOUND', `No active schedule ${args.schedule_id} fires into or was set by this conversation. list_schedules shows them.`);
  }
  const conversation = await getConversation(sessions, caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    await askApproval(
      {
        title: `End the schedule "${found.title}" on ${relay}`,
        lines: [`Schedule: ${found.id}`],
        asked: `ending the schedule "${found.title}"`,
        nothing: 'Nothing was ended.',
      },
      conversation,
      context,
    );
  }
  const ended = answered(
    (await scheduler.endSchedule({ userId: caller.userId, sessionId: caller.sessionId, scheduleId: found.id })).schedule,
    'EndSchedule',
    'schedule',
  );
  return success(`unschedule → ${relay}: ended "${ended.title}" (${ended.id})`, { schedule: scheduleView(ended) }, relay);
}
