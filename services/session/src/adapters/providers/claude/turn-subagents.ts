/**
 * Claude Code's sub-agents of one turn as the relay's local_agent tasks, so list_sessions and read_session show
 * them while they run. Each ends with its task_notification's status; those still running when the turn ends are
 * stopped, since Claude Code's process (and the sub-agent in it) is gone once the relay closes the query.
 * Recording them is bookkeeping: a failure is logged, never the turn's failure.
 */
import type { Logger } from '@relay/telemetry';

/** Where sub-agents are kept as tasks (the relay's task store; BackgroundTasks in the service). */
export interface SubagentTaskLog {
  /** Records a running sub-agent of the session; answers the relay's task id. */
  track(input: { sessionId: string; cwd: string; description: string }): Promise<{ id: string }>;
  /** The sub-agent showed progress (a sign of life for the stall). */
  progress(taskId: string): Promise<void>;
  end(taskId: string, status: 'completed' | 'failed' | 'stopped', reason?: string): Promise<void>;
}

export const TURN_ENDED_REASON = 'the turn ended before the sub-agent reported its end; Claude Code stopped with the turn';

export class TurnSubagents {
  /** Relay task ids by Claude Code's task id, while they run. */
  readonly #running = new Map<string, string>();
  /** Descriptions by Claude Code's task id, from their start (subagent_finished names the sub-agent). */
  readonly #descriptions = new Map<string, string>();
  readonly #log: SubagentTaskLog;
  readonly #session: { id: string; cwd: string };
  readonly #logger: Logger;

  constructor(log: SubagentTaskLog, session: { id: string; cwd: string }, logger: Logger) {
    this.#log = log;
    this.#session = session;
    this.#logger = logger;
  }

  /** A task_started: anything but a shell (task_type local_bash) becomes a running local_agent task. */
  async started(message: { task_id: string; description: string; task_type?: string | undefined }): Promise<void> {
    this.#descriptions.set(message.task_id, message.description);
    if (message.task_type === 'local_bash' || this.#running.has(message.task_id)) return;
    try {
      const task = await this.#log.track({ sessionId: this.#session.id, cwd: this.#session.cwd, description: message.description });
      this.#running.set(message.task_id, task.id);
    } catch (error) {
      this.#logger.warn({ err: error, claudeTaskId: message.task_id }, 'could not record the sub-agent as a task');
    }
  }

  async progressed(claudeTaskId: string): Promise<void> {
    const taskId = this.#running.get(claudeTaskId);
    if (taskId === undefined) return;
    await this.#log.progress(taskId).catch((error: unknown) => this.#logger.warn({ err: error, taskId }, 'could not note the sub-agent’s progress'));
  }

  /** A task_notification: the task ends with its status. Answers the sub-agent's description, if it was seen starting. */
  async finished(claudeTaskId: string, status: 'completed' | 'failed' | 'stopped'): Promise<string | undefined> {
    const taskId = this.#running.get(claudeTaskId);
    this.#running.delete(claudeTaskId);
    if (taskId !== undefined) await this.#end(taskId, status, '');
    return this.#descriptions.get(claudeTaskId);
  }

  /** The turn is over: the sub-agents still running are stopped. */
  async endAll(): Promise<void> {
    const left = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(left.map((taskId) => this.#end(taskId, 'stopped', TURN_ENDED_REASON)));
  }

  async #end(taskId: string, status: 'completed' | 'failed' | 'stopped', reason: string): Promise<void> {
    await this.#log
      .end(taskId, status, reason)
      .catch((error: unknown) => this.#logger.warn({ err: error, taskId }, 'could not record the sub-agent task’s end'));
  }
}
