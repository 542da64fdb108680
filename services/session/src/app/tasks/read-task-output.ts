/**
 * read_task_output (pure use case): the end of a task's output as the console shows it (colours
 * removed, credentials blanked, repeats collapsed), whether there is more, how quiet a running task
 * is, and its test-run counts.
 */
import { invalidInput, notFound } from '../../domain/errors.ts';
import { readConsole, tailOf } from '../../domain/tasks/console-text.ts';
import type { TaskOutputReader, TaskStore } from './ports.ts';
import {
  DEFAULT_TASK_LINES,
  hasReadableOutput,
  isOutputKept,
  MAX_TASK_LINES,
  stallOf,
  TASK_OUTPUT_KEPT_BYTES,
  type Task,
  type TaskStall,
} from '../../domain/tasks/task.ts';
import type { TestCounts } from '../../domain/tasks/test-counts.ts';

export interface TaskOutput {
  task: Task;
  tail: string[];
  truncated: boolean;
  /** Set while the task runs. */
  stall: TaskStall | undefined;
  counts: TestCounts | undefined;
  notes: string[];
}

/** The note read_task_output gives for a sub-agent (local_agent): it is not a shell command. */
export const SUBAGENT_NO_OUTPUT_NOTE =
  "This task is the agent's sub-agent, not a shell command: the relay has no output of it to read. Its result comes as the session's subagent_finished event and in the session's reply.";

export async function readTaskOutput(
  deps: { tasks: TaskStore; output: TaskOutputReader; relay: { name: string }; quietAfterMinutes: number },
  input: { userId: string; sessionId: string; taskId: string; lines: number; now: Date },
): Promise<TaskOutput> {
  const lines = input.lines === 0 ? DEFAULT_TASK_LINES : input.lines;
  if (!Number.isInteger(lines) || lines < 1 || lines > MAX_TASK_LINES) {
    throw invalidInput(`lines must be a whole number from 1 to ${MAX_TASK_LINES} (default ${DEFAULT_TASK_LINES}).`, {
      field: 'lines',
      min: 1,
      max: MAX_TASK_LINES,
    });
  }
  const task = await deps.tasks.findTask(input.taskId);
  if (task === undefined || task.userId !== input.userId || task.sessionId !== input.sessionId) {
    throw notFound(`No task '${input.taskId}' in session '${input.sessionId}' on relay "${deps.relay.name}".`, { field: 'task_id' });
  }
  if (!isOutputKept(task, input.now)) {
    throw notFound(`Task '${input.taskId}' ended more than an hour ago; its output is no longer kept on relay "${deps.relay.name}".`, { field: 'task_id' });
  }
  const { userId: _userId, ...plainTask } = task;
  const notes: string[] = [];
  if (!hasReadableOutput(task)) {
    // The task exists (read_session lists it): answer it with its status rather than NOT_FOUND, and say why there are no lines.
    notes.push(SUBAGENT_NO_OUTPUT_NOTE);
    return { task: plainTask, tail: [], truncated: false, stall: undefined, counts: undefined, notes };
  }
  const stall = task.status === 'running' ? stallOf(task, input.now, deps.quietAfterMinutes) : undefined;
  if (task.outputRemoved) {
    notes.push('The output is no longer there: it is removed an hour after the task ends.');
    return { task: plainTask, tail: [], truncated: false, stall, counts: undefined, notes };
  }
  const read = await deps.output.readEnd(task.id, TASK_OUTPUT_KEPT_BYTES);
  const { lines: consoleView, counts } = readConsole(read.text);
  if (task.outputDropped) {
    const partial = counts !== undefined && !counts.final ? '; the counts so far cover only that end' : '';
    notes.push(
      `Only the end of the output exists: the relay keeps the last ${TASK_OUTPUT_KEPT_BYTES / 1024} KB of the ${formatBytes(task.outputBytes)} written${partial}.`,
    );
  }
  const { tail, truncated } = tailOf(consoleView, lines);
  return { task: plainTask, tail, truncated: truncated || read.cut || task.outputDropped, stall, counts, notes };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
