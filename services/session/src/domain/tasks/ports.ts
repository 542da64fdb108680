import type { Task, TaskStatus } from './task.ts';

/** Where tasks are kept. */
export interface TaskStore {
  findTask(taskId: string): Promise<(Task & { userId: string }) | undefined>;
  /** The tasks of these sessions that run, or ended at or after `endedSince`, oldest first. */
  tasksOf(sessionIds: readonly string[], endedSince: Date): Promise<Task[]>;
}

/** A task's output file, as far as it can be read. */
export interface TaskOutputReader {
  /**
   * The last `maxBytes` of the output at `path` (UTF-8, a cut first line dropped) and whether
   * anything came before them; undefined when the file is not there.
   */
  readEnd(path: string, maxBytes: number): Promise<{ text: string; cut: boolean } | undefined>;
}

export type { Task, TaskStatus };
