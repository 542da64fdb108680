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
  /**
   * The turn that runs; null when none. An external session's call in flight is its turn (id `call:<call id>`),
   * held until `heldUntil`: a hold its gateway stopped renewing (a crash) ends there by itself (runsAt).
   */
  turn: { id: string; startedAt: Date; heldUntil?: Date } | null;
  /** The latest sign of life of the running turn (its start, its reply text or tool calls, a question it asked, a sub-agent that finished, a task it started). */
  turnActivityAt: Date | null;
  tasks: RunningTask[];
  /** When the latest turn or task ended: with nothing running, the instant the session went idle. */
  lastEndedAt: Date | null;
  /** When the latest turn ended: a turn_started older than it arrived late and starts nothing. */
  lastTurnEndedAt: Date | null;
  /** The last tasks that ended, so a task_started delivered after its end adds nothing. */
  endedTaskIds: string[];
  /** The W3C traceparent of the event that ended the latest run (at lastEndedAt): all_idle links to it. */
  lastEndedTraceParent?: string | null;
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

/** `traceParent`: the trace the event came in with, when known (what it ends, all_idle links to). */
type EventBase = { eventId: string; occurredAt: Date; sessionId: string; userId: string; traceParent?: string | null };

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
  | (EventBase & { type: 'archived' })
  /** An external session's relay_tool call is held (first or renewed) until `heldUntil`: its running turn. */
  | (EventBase & { type: 'call_held'; callId: string; heldUntil: Date })
  /** The external session's last held call ended: its turn is over. */
  | (EventBase & { type: 'call_released'; callId: string });

/** The state list_sessions would show for these runs. */
export function stateOf(runs: SessionRuns): SessionState {
  if (runs.turn !== null) return 'running_turn';
  return runs.tasks.length > 0 ? 'background_only' : 'idle';
}

/** The turn id an external session's held call runs as. */
export const callTurnId = (callId: string): string => `call:${callId}`;

/** Whether the running turn is an external session's held call. */
export const isCallTurn = (turn: SessionRuns['turn']): boolean => turn !== null && turn.heldUntil !== undefined;

/**
 * The runs at `now`: a held call whose hold lapsed before then (its gateway stopped renewing it) ended when it
 * lapsed; everything else as stored.
 */
export function runsAt(runs: SessionRuns, now: Date): SessionRuns {
  const heldUntil = runs.turn?.heldUntil;
  if (heldUntil === undefined || heldUntil.getTime() > now.getTime()) return runs;
  const later = (a: Date | null) => (a !== null && a.getTime() > heldUntil.getTime() ? a : heldUntil);
  return { ...runs, turn: null, turnActivityAt: null, lastEndedAt: later(runs.lastEndedAt), lastTurnEndedAt: later(runs.lastTurnEndedAt) };
}

/** A row as it stands at `now` (runsAt), its state with it. */
export function activityAt(row: SessionActivity, now: Date): SessionActivity {
  const runs = runsAt(row.runs, now);
  return runs === row.runs ? row : { ...row, runs, state: stateOf(runs) };
}
