/** Tasks on the wire: the proto Task of read_session, list_sessions, read_task_output and the task events. */
import type { Task as TaskMessage, TestCounts as TestCountsMessage } from '@relay/proto/relay/session/v1/session';
import type { Task } from '../../../domain/tasks/task.ts';
import type { TestCounts } from '../../../domain/tasks/test-counts.ts';

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
