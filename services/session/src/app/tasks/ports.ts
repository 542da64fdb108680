import type { Task } from '../../domain/tasks/task.ts';

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

export type { Task };
