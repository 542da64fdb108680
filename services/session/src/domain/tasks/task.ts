/**
 * A background task and the rules about it (pure): its statuses, how long its output is kept, how
 * quiet it is, and what read_session shows of it.
 */

export type TaskStatus = 'running' | 'completed' | 'failed' | 'stopped';

/**
 * local_bash: a shell command the relay runs, with output to read. local_agent: a provider's sub-agent
 * (Claude Code's), tracked while its turn runs; the relay has no output of it to read.
 */
export type TaskType = 'local_bash' | 'local_agent';

export interface Task {
  id: string;
  sessionId: string;
  description: string;
  type: TaskType;
  status: TaskStatus;
  exitCode: number | null;
  reason: string;
  cwd: string;
  startedAt: Date;
  endedAt: Date | null;
  lastOutputAt: Date | null;
  /** Bytes of output written in all; only the last TASK_OUTPUT_KEPT_BYTES of them are kept. */
  outputBytes: number;
  /** The start of the output was dropped to keep it within TASK_OUTPUT_KEPT_BYTES. */
  outputDropped: boolean;
  /** The output was removed (an hour after the task ended). */
  outputRemoved: boolean;
}

/** Output is readable while the task runs and for an hour after it ended (spec, read_task_output). */
export const TASK_OUTPUT_KEPT_MS = 60 * 60_000;
/** The end of a task's output kept for reading (about a console's scrollback); the start past it is dropped. */
export const TASK_OUTPUT_KEPT_BYTES = 512 * 1024;
/**
 * A running task's lease (relay time): its runner renews it every TASK_LEASE_RENEW_MS; once it is past, the
 * runner is taken for dead and any replica fails the task.
 */
export const TASK_LEASE_MS = 30_000;
export const TASK_LEASE_RENEW_MS = 10_000;
export const DEFAULT_TASK_LINES = 50;
export const MAX_TASK_LINES = 1000;

/** How an ended process's exit maps to the task's status: 0 completed, anything else failed. */
export function endedStatus(exitCode: number | null): 'completed' | 'failed' {
  return exitCode === 0 ? 'completed' : 'failed';
}

/** Whether the task has output the relay keeps (a shell command's); a sub-agent's work is in its session, not here. */
export function hasReadableOutput(task: Pick<Task, 'type'>): boolean {
  return task.type === 'local_bash';
}

/** Whether `task`'s output may still be read at `now`. */
export function isOutputKept(task: Pick<Task, 'status' | 'endedAt'>, now: Date): boolean {
  if (task.status === 'running' || task.endedAt === null) return true;
  return now.getTime() - task.endedAt.getTime() <= TASK_OUTPUT_KEPT_MS;
}

export interface TaskStall {
  minutes: number;
  since: Date;
  quiet: boolean;
  quietAfterMinutes: number;
}

/** How long a running task has written nothing (since its last output, or its start), against the quiet setting. */
export function stallOf(task: Pick<Task, 'startedAt' | 'lastOutputAt'>, now: Date, quietAfterMinutes: number): TaskStall {
  const since = task.lastOutputAt ?? task.startedAt;
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  return { minutes, since, quiet: minutes >= quietAfterMinutes, quietAfterMinutes };
}

/**
 * Whether a session is background_only (list_sessions, read_session): the agent has answered (no turn is
 * queued or running: the session is idle) and one of its tasks still runs.
 */
export function isBackgroundOnly(sessionIdle: boolean, tasks: readonly { status: string }[]): boolean {
  return sessionIdle && tasks.some((task) => task.status === 'running');
}
