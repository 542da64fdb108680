/**
 * The tasks list_sessions and read_session show on each session (shell commands and sub-agents): those
 * running and those that ended within the hour, each with whether it has output, its health while it runs and its
 * test-run counts; a session whose only work left is a task is background_only.
 */
import {
  SessionState,
  type GroupMember as GroupMemberMessage,
  type Session as SessionMessage,
  type Task as TaskMessage,
} from '@relay/proto/relay/session/v1/session';
import type { TaskOutputReader, TaskStore } from '../../app/tasks/ports.ts';
import { readConsole } from '../../domain/tasks/console-text.ts';
import { hasReadableOutput, isBackgroundOnly, stallOf, TASK_OUTPUT_KEPT_MS, type Task } from '../../domain/tasks/task.ts';
import { toTaskMessage } from './wire/task-wire.ts';

/** Enough of the end of the output for the counts of a run's summary. */
const COUNTS_READ_BYTES = 64 * 1024;

export interface SessionTasksDeps {
  store: Pick<TaskStore, 'tasksOf'>;
  output: TaskOutputReader;
  now: () => Date;
  /** The relay's quiet setting for tasks, read for each listing (the user may change it). */
  quietAfterMinutes: () => Promise<number>;
}

/** `sessions` with their tasks, and background_only where an idle session's task still runs. */
export async function withTasks(deps: SessionTasksDeps | undefined, sessions: SessionMessage[]): Promise<SessionMessage[]> {
  return (
    await tasksOfSessions(
      deps,
      sessions.map((session) => session.id),
    )
  )(sessions);
}

/**
 * Reads the tasks of the sessions `sessionIds` (withTasks' reads), so that the caller may read anything else about
 * them meanwhile; the answer puts them on the sessions, as withTasks does.
 */
export async function tasksOfSessions(
  deps: SessionTasksDeps | undefined,
  sessionIds: readonly string[],
): Promise<(sessions: SessionMessage[]) => SessionMessage[]> {
  if (deps === undefined || sessionIds.length === 0) return (sessions) => sessions;
  const now = deps.now();
  const tasks = await deps.store.tasksOf(sessionIds, new Date(now.getTime() - TASK_OUTPUT_KEPT_MS));
  const quietAfterMinutes = tasks.some((task) => task.status === 'running') ? await deps.quietAfterMinutes() : 0;
  const views = await Promise.all(tasks.map((task) => taskView(deps, task, now, quietAfterMinutes)));
  return (sessions) =>
    sessions.map((session) => {
      const own = views.filter((view) => view.sessionId === session.id);
      return { ...session, tasks: own, state: stateWith(session.state, own) };
    });
}

/** read_session's group members with background_only where an idle member's task still runs. */
export async function withMemberStates(deps: SessionTasksDeps | undefined, members: GroupMemberMessage[]): Promise<GroupMemberMessage[]> {
  const idle = members.filter((member) => member.state === SessionState.SESSION_STATE_IDLE);
  if (deps === undefined || idle.length === 0) return members;
  // Ended "since now": only the running ones.
  const tasks = await deps.store.tasksOf(
    idle.map((member) => member.id),
    deps.now(),
  );
  return members.map((member) => ({
    ...member,
    state: stateWith(
      member.state,
      tasks.filter((task) => task.sessionId === member.id),
    ),
  }));
}

function stateWith(state: SessionState, tasks: readonly { status: string }[]): SessionState {
  return isBackgroundOnly(state === SessionState.SESSION_STATE_IDLE, tasks) ? SessionState.SESSION_STATE_BACKGROUND_ONLY : state;
}

async function taskView(deps: SessionTasksDeps, task: Task, now: Date, quietAfterMinutes: number): Promise<TaskMessage> {
  const hasOutput = task.outputBytes > 0 && !task.outputRemoved;
  const counts = hasOutput ? readConsole((await deps.output.readEnd(task.id, COUNTS_READ_BYTES)).text).counts : undefined;
  const message = toTaskMessage(task, { hasOutput, counts });
  // Health is for a command whose output the relay keeps (spec, read_session); a sub-agent has none here.
  if (task.status !== 'running' || !hasReadableOutput(task)) return message;
  const stall = stallOf(task, now, quietAfterMinutes);
  return { ...message, health: { minutesSinceOutput: stall.minutes, quiet: stall.quiet, quietAfterMinutes: stall.quietAfterMinutes } };
}
