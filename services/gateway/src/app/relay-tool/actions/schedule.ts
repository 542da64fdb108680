/**
 * schedule: has this relay queue a prompt later, once at `at` or every `every_minutes` (from `at`, or
 * from now), into the caller's own conversation or, with `session`, another session here. Another
 * session is gated like a send; in the ask and plan modes the user allows it on a card first. The
 * scheduler checks every argument and the limits in a dry run before any card.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { passLoopGuard } from '../pass-loop-guard.ts';
import { toolError } from '../../../domain/errors.ts';
import { provenanceOf } from '../../../domain/provenance.ts';
import { success, type Success } from '../../../domain/result.ts';
import { quoteStart } from '../../../domain/one-line.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation, readSession } from '../../session-reads.ts';
import { GRID_NOTE, isoOf } from '../../views/schedule-view.ts';
import { scheduleRelay } from '../schedule-relay.ts';

export const schedule = defineAction({
  name: 'schedule',
  args: argumentsOf('relay', 'session', 'title', 'text', 'at', 'every_minutes'),
  relay: 'optional',
  write: true,
  handler: runSchedule,
});

async function runSchedule(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['title', 'text']);
  if (args.at === undefined && args.every_minutes === undefined) {
    throw toolError(
      'REMOTE_RELAY_INVALID_INPUT',
      'schedule needs at (an ISO 8601 time), every_minutes (a whole number of minutes), or both. Nothing was scheduled.',
      { field: 'at' },
    );
  }
  const { relay, scheduler } = scheduleRelay('schedule', args.relay, context);
  const { caller, sessions } = context;

  const conversation = await getConversation(sessions, caller.sessionId);
  const setting = { id: conversation.session.id, title: conversation.session.title };
  let target = setting;
  // An external target's firings are written into its conversation for its agent to read (no turn runs them).
  if (args.session !== undefined && args.session !== caller.sessionId) {
    const read = await readSession(sessions, caller.userId, args.session, 1);
    if (read.session.archived)
      throw toolError('REMOTE_RELAY_ARCHIVED', `Session ${args.session} is archived; it takes no scheduled prompts. Nothing was scheduled.`);
    target = { id: read.session.id, title: read.session.title };
  }
  const input = {
    userId: caller.userId,
    settingSessionId: setting.id,
    settingSessionTitle: setting.title,
    targetSessionId: target.id,
    targetSessionTitle: target.title,
    title: args.title,
    text: args.text,
    at: args.at ?? '',
    everyMinutes: args.every_minutes ?? 0,
    provenance: provenanceOf(relay, conversation),
  };
  await scheduler.createSchedule({ ...input, dryRun: true });
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    const cadence = input.everyMinutes > 0 ? `every ${input.everyMinutes} min` : 'once';
    await askApproval(
      {
        title: `Schedule a prompt on ${relay} into "${target.title}": "${input.title}"`,
        lines: [`When: ${input.at || 'from now'}, ${cadence}`, `Prompt: ${quoteStart(input.text, 200)}`],
        asked: `scheduling "${input.title}" into "${target.title}"`,
        nothing: 'Nothing was scheduled.',
      },
      conversation,
      context,
    );
  }
  // A schedule for another session counts once toward the loop guard when set (the scheduler counts each firing).
  if (target.id !== setting.id) await passLoopGuard(conversation, context, 'Nothing was scheduled.');

  const set = answered((await scheduler.createSchedule({ ...input, dryRun: false })).schedule, 'CreateSchedule', 'schedule');
  const cadence = set.once ? 'once' : `every ${set.everyMinutes} min`;
  const into = target.id === setting.id ? '' : ` into session "${target.title}"`;
  return success(
    `schedule → ${relay}${into}: ${cadence}, next ${isoOf(set.nextFireAt)} (${set.id})`,
    {
      schedule_id: set.id,
      schedule: { id: set.id, title: set.title, everyMinutes: set.everyMinutes, once: set.once, nextFireAt: isoOf(set.nextFireAt) },
      ...(set.once ? {} : { note: GRID_NOTE }),
    },
    relay,
  );
}
