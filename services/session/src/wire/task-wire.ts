/**
 * Tasks on the wire: the proto Task of read_session, list_sessions and read_task_output, and the
 * outbox entries of the task_started / task_finished / task_failed / task_output events.
 */
import { outgoing, type OutboxEntry } from '@relay/bus';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { Task as TaskMessage, TestCounts as TestCountsMessage } from '@relay/proto/relay/session/v1/session';
import type { Task } from '../domain/tasks/task.ts';
import type { TestCounts } from '../domain/tasks/test-counts.ts';

/** The outbox entry of a task_output event: when the running task last wrote. */
export function taskOutputEvent(event: { eventId: string; occurredAt: Date; sessionId: string; userId: string; taskId: string; lastOutputAt: Date }): OutboxEntry {
  return outgoing(SessionEvents.TASK_OUTPUT, event, { id: event.eventId });
}

/** The proto Task of `task`. */
export function toTaskMessage(task: Task, extra: { hasOutput?: boolean; counts?: TestCounts | undefined } = {}): TaskMessage {
  return {
    id: task.id,
    sessionId: task.sessionId,
    description: task.description,
    type: task.type,
    status: task.status,
    ...(task.exitCode === null ? {} : { exitCode: task.exitCode }),
    startedAt: task.startedAt,
    endedAt: task.endedAt ?? undefined,
    lastOutputAt: task.lastOutputAt ?? undefined,
    hasOutput: extra.hasOutput ?? (task.outputBytes > 0 && !task.outputRemoved),
    reason: task.reason,
    counts: extra.counts === undefined ? undefined : toTestCountsMessage(extra.counts),
    health: undefined,
  };
}

export function toTestCountsMessage(counts: TestCounts): TestCountsMessage {
  return { runner: counts.runner, passed: counts.passed, failed: counts.failed, skipped: counts.skipped, final: counts.final };
}

/**
 * The outbox entry of a task's start or end event. A shell command that did not complete is a
 * task_failed. A sub-agent's end is always a task_finished (its status in the task): the default subscription
 * is woken for it by subagent_finished, and a task_failed as well would wake it twice for one failed sub-agent;
 * a subscription that names task_finished in place of subagent_finished gets every end (spec, "The default events").
 */
export function taskEvent(kind: 'started' | 'ended', event: { eventId: string; occurredAt: Date; userId: string; task: Task }): OutboxEntry {
  const message = { eventId: event.eventId, occurredAt: event.occurredAt, sessionId: event.task.sessionId, userId: event.userId, task: toTaskMessage(event.task) };
  const id = { id: event.eventId };
  if (kind === 'started') return outgoing(SessionEvents.TASK_STARTED, message, id);
  return outgoing(event.task.status === 'completed' || event.task.type === 'local_agent' ? SessionEvents.TASK_FINISHED : SessionEvents.TASK_FAILED, message, id);
}
