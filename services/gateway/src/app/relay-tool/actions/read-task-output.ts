/**
 * read_task_output: the end of a background shell command's output, as the task console shows it
 * (plain text, a repeated line marked [×N], credentials blanked), while it runs and for an hour after
 * it ended: task, tail, truncated, stall while it runs, counts for a test run, and notes. The user API answers
 * the same view (GET /api/v1/sessions/:id/tasks/:taskId/output).
 */
import type { Task } from '@relay/proto/relay/session/v1/session';
import type { ReadTaskOutputResponse } from '@relay/proto/relay/session/v1/session_service';
import { answered } from '../../../domain/answers.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId } from '../../views/turn-result.ts';

export const readTaskOutput = defineAction({
  name: 'read_task_output',
  args: argumentsOf('relay', 'session', 'task_id', 'lines'),
  relay: 'required',
  write: false,
  toPaired: {
    level: 'read',
    forwarded: true,
    features: [{ since: '0.9.12', refusal: 'Relay "{relay}" runs OAR {version}, which has no read_task_output (0.9.12).' }],
  },
  handler: runReadTaskOutput,
  fromPaired: (args, context) => runReadTaskOutput(args, context),
});

export const TASK_LINES_DEFAULT = 50;
export const TASK_LINES_MAX = 1000;

async function runReadTaskOutput(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session', 'task_id']);
  const lines = args.lines ?? TASK_LINES_DEFAULT;
  if (!Number.isInteger(lines) || lines < 1 || lines > TASK_LINES_MAX) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', `read_task_output: lines must be from 1 to ${TASK_LINES_MAX}; got ${lines}.`);
  }
  const relay = thisRelay(args.relay, context);
  const answer = await context.sessions.readTaskOutput({ userId: context.caller.userId, sessionId: args.session, taskId: args.task_id, lines });
  const read = { ...answer, task: answered(answer.task, 'ReadTaskOutput', 'task') };
  return success(summaryOf(relay, args.session, read), taskOutputView(read), relay);
}

/** A task's output as ReadTaskOutput answers it, its task always there. */
type TaskOutput = ReadTaskOutputResponse & { task: Task };

/** The JSON view of a task's output, as read_task_output and the user API answer it. */
export function taskOutputView(read: ReadTaskOutputResponse) {
  const task = answered(read.task, 'ReadTaskOutput', 'task');
  return {
    task: {
      id: task.id,
      description: task.description,
      type: task.type,
      start: task.startedAt?.toISOString() ?? null,
      status: task.status,
      exitCode: task.exitCode ?? null,
      ...(task.reason ? { reason: task.reason } : {}),
    },
    ...(read.stall
      ? {
          stall: {
            minutes: read.stall.minutes,
            since: read.stall.since?.toISOString() ?? null,
            quiet: read.stall.quiet,
            quietAfterMinutes: read.stall.quietAfterMinutes,
          },
        }
      : {}),
    ...(read.counts ? { counts: { ...read.counts } } : {}),
    tail: read.tail,
    truncated: read.truncated,
    ...(read.notes.length > 0 ? { notes: read.notes } : {}),
  };
}

/** "read_task_output → desk session 3f9c2a1e task b7k2m9q4: 50 lines, running, last output 14 min ago, 412 passed, 2 failed" */
function summaryOf(relay: string, sessionId: string, read: TaskOutput): string {
  const parts = [count(read.tail.length, 'line'), read.task.status];
  if (read.task.exitCode !== undefined && read.task.status !== 'running') parts.push(`exit code ${read.task.exitCode}`);
  if (read.stall) parts.push(`last output ${read.stall.minutes} min ago`);
  if (read.counts) {
    parts.push(`${read.counts.passed} passed`, `${read.counts.failed} failed`);
    if (read.counts.skipped > 0) parts.push(`${read.counts.skipped} skipped`);
  }
  return `read_task_output → ${relay} session ${shortId(sessionId)} task ${shortId(read.task.id.replace(/^task_/, ''))}: ${parts.join(', ')}`;
}
