import type { Task, TaskStatus, TaskType } from '../../domain/tasks/task.ts';

/** Where tasks are kept. */
export interface TaskStore {
  findTask(taskId: string): Promise<(Task & { userId: string }) | undefined>;
  /** The tasks of these sessions that run, or ended at or after `endedSince`, oldest first. */
  tasksOf(sessionIds: readonly string[], endedSince: Date): Promise<Task[]>;
}

/** A task's kept output, read from any replica. */
export interface TaskOutputReader {
  /**
   * The end of the task's kept output, at most about `maxBytes` of it (UTF-8, a cut first line dropped), and
   * whether kept output came before it.
   */
  readEnd(taskId: string, maxBytes: number): Promise<{ text: string; cut: boolean }>;
}

/** What a new task row holds. */
export interface NewTask {
  id: string;
  sessionId: string;
  description: string;
  type: TaskType;
  cwd: string;
  host: string;
  runnerId: string;
  startedAt: Date;
  leaseUntil: Date;
}

/** How a task ended. */
export interface TaskEnd {
  status: Exclude<TaskStatus, 'running'>;
  exitCode: number | null;
  reason: string;
  endedAt: Date;
}

/** One batch of a task's output: new chunks, and the chunks up to `dropThroughSeq` to drop to stay in bounds. */
export interface OutputBatch {
  chunks: { seq: number; data: Uint8Array }[];
  /** Bytes the command wrote in this batch, kept or not. */
  bytes: number;
  lastOutputAt: Date;
  /** Chunks with a seq up to this one are dropped (the start of the output); undefined drops none. */
  dropThroughSeq: number | undefined;
  /** Part of the batch itself was dropped before it was written. */
  droppedUnwritten: boolean;
  /** Publish a task_output event with lastOutputAt (at most once a minute: the log decides). */
  announce?: boolean;
}

/** What this replica's background tasks write as they run: their rows and leases, and their output. */
export interface RunningTaskStore {
  /** Records a running task and its task_started event; undefined when the session is gone. */
  insertTask(task: NewTask, pid: number | null): Promise<Task | undefined>;
  /**
   * Ends a running task with its event; undefined when it had ended already. With `leaseBefore`, only a
   * task whose lease ran out before that instant (its runner is gone) is ended.
   */
  endTask(taskId: string, end: TaskEnd, options?: { leaseBefore?: Date }): Promise<Task | undefined>;
  /**
   * Appends a batch of output, notes when it came, and drops the chunks past the task's bound, in one transaction;
   * with `announce`, its task_output event goes into the outbox in that transaction too.
   */
  appendOutput(taskId: string, batch: OutputBatch): Promise<void>;
  /**
   * A running task showed a sign of life without output (a sub-agent's progress): its lastOutputAt, and with
   * `announce` a task_output event in the same transaction, so a watcher's stall is counted from it.
   */
  touchTask(taskId: string, at: Date, announce: boolean): Promise<void>;
  /** Renews the leases of this runner's running tasks among `taskIds`; answers the ids it still holds. */
  renewLeases(runnerId: string, taskIds: readonly string[], leaseUntil: Date): Promise<Set<string>>;
  /** Running tasks of this host that another (earlier) runner started: their process died with it. */
  orphans(host: string, runnerId: string): Promise<(Task & { pid: number | null })[]>;
  /** Ids of running tasks of other runners whose lease ran out before `now`: their runner is gone. */
  expiredLeases(runnerId: string, now: Date): Promise<string[]>;
  /** Removes the output of the tasks that ended before `before`; answers how many tasks lost theirs. */
  removeOutputs(before: Date): Promise<number>;
}

export type { Task };
