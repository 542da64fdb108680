/**
 * What this service knows of each session, kept from the session service's events (never from its
 * database): its title, what runs in it and when each run last showed activity. stalled, all_idle and the
 * heartbeat are computed from it.
 */

/** A session's state as the spec names it in list_sessions. */
export type SessionState = 'running_turn' | 'background_only' | 'idle';

/** A background task that runs, and when it last wrote output (null: never). */
export type RunningTask = { id: string; description: string; startedAt: Date; lastOutputAt: Date | null };

/** What runs in a session, as its events told it. */
export type SessionRuns = {
  /** The turn that runs; null when none. */
  turn: { id: string; startedAt: Date } | null;
  /** The latest sign of life of the running turn (its start, its reply text or tool calls, a question it asked, a sub-agent that finished, a task it started). */
  turnActivityAt: Date | null;
  tasks: RunningTask[];
  /** When the latest turn or task ended: with nothing running, the instant the session went idle. */
  lastEndedAt: Date | null;
  /** When the latest turn ended: a turn_started older than it arrived late and starts nothing. */
  lastTurnEndedAt: Date | null;
  /** The last tasks that ended, so a task_started delivered after its end adds nothing. */
  endedTaskIds: string[];
};

export const NO_RUNS: SessionRuns = { turn: null, turnActivityAt: null, tasks: [], lastEndedAt: null, lastTurnEndedAt: null, endedTaskIds: [] };

/** One row of the projection. */
export type SessionActivity = {
  sessionId: string;
  userId: string;
  /** '' until its session_created is seen. */
  title: string;
  state: SessionState;
  lastEventAt: Date;
  lastEventId: string;
  runs: SessionRuns;
  archivedAt: Date | null;
};

type EventBase = { eventId: string; occurredAt: Date; sessionId: string; userId: string };

/** A session event, decoded from the bus. */
export type SessionEvent =
  | (EventBase & { type: 'session_created'; title: string; state: SessionState })
  | (EventBase & { type: 'turn_started'; turnId: string })
  | (EventBase & { type: 'turn_ended'; turnId: string })
  /** A sign of life of the running turn: its reply text or tool calls (at most once a minute), a question it asked, a sub-agent of it that finished. */
  | (EventBase & { type: 'turn_activity' })
  | (EventBase & { type: 'task_started'; task: { id: string; description: string } })
  | (EventBase & { type: 'task_ended'; taskId: string })
  /** A running task wrote output (published at most once a minute). */
  | (EventBase & { type: 'task_output'; taskId: string; lastOutputAt: Date })
  | (EventBase & { type: 'archived' });

/** The state list_sessions would show for these runs. */
export function stateOf(runs: SessionRuns): SessionState {
  if (runs.turn !== null) return 'running_turn';
  return runs.tasks.length > 0 ? 'background_only' : 'idle';
}
