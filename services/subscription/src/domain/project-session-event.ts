import { callTurnId, isCallTurn, NO_RUNS, runsAt, stateOf, type SessionActivity, type SessionEvent, type SessionRuns } from './session-activity.ts';

/** How many ended task ids a row remembers (a task_started redelivered after its end is that recent). */
const ENDED_TASKS_KEPT = 20;

const later = (a: Date | null, b: Date): Date => (a !== null && a.getTime() > b.getTime() ? a : b);

/** The runs once `event` is applied, with the trace of the event that ended the latest run (all_idle links to it). */
function applyRuns(runs: SessionRuns, event: SessionEvent): SessionRuns {
  const next = applyRunsOnly(runs, event);
  const ended = next.lastEndedAt;
  if (next === runs || ended === null || ended.getTime() !== event.occurredAt.getTime() || ended.getTime() === runs.lastEndedAt?.getTime()) return next;
  return { ...next, lastEndedTraceParent: event.traceParent ?? null };
}

/** The runs once `event` is applied; each rule holds when JetStream delivers an event late (after a nak). */
function applyRunsOnly(runs: SessionRuns, event: SessionEvent): SessionRuns {
  const at = event.occurredAt;
  switch (event.type) {
    case 'turn_started': {
      // A start older than the last end, or than the running turn's start, arrived late: that turn is over.
      if (runs.lastTurnEndedAt !== null && runs.lastTurnEndedAt.getTime() >= at.getTime()) return runs;
      if (runs.turn !== null && runs.turn.startedAt.getTime() > at.getTime()) return runs;
      return { ...runs, turn: { id: event.turnId, startedAt: at }, turnActivityAt: at };
    }
    case 'turn_ended': {
      const ends = runs.turn !== null && (runs.turn.id === event.turnId || runs.turn.startedAt.getTime() <= at.getTime());
      return {
        ...runs,
        turn: ends ? null : runs.turn,
        turnActivityAt: ends ? null : runs.turnActivityAt,
        lastTurnEndedAt: later(runs.lastTurnEndedAt, at),
        lastEndedAt: later(runs.lastEndedAt, at),
      };
    }
    case 'turn_activity':
      return runs.turn === null ? runs : { ...runs, turnActivityAt: later(runs.turnActivityAt, at) };
    case 'task_started': {
      if (runs.endedTaskIds.includes(event.task.id) || runs.tasks.some((task) => task.id === event.task.id)) return runs;
      const tasks = [...runs.tasks, { id: event.task.id, description: event.task.description, startedAt: at, lastOutputAt: null }];
      // Starting a task is a sign of life of the turn that started it.
      return { ...runs, tasks, turnActivityAt: runs.turn === null ? runs.turnActivityAt : later(runs.turnActivityAt, at) };
    }
    case 'task_ended':
      return {
        ...runs,
        tasks: runs.tasks.filter((task) => task.id !== event.taskId),
        endedTaskIds: [...runs.endedTaskIds.filter((id) => id !== event.taskId), event.taskId].slice(-ENDED_TASKS_KEPT),
        lastEndedAt: later(runs.lastEndedAt, at),
      };
    case 'task_output': {
      const task = runs.tasks.find((candidate) => candidate.id === event.taskId);
      if (task === undefined || (task.lastOutputAt !== null && task.lastOutputAt.getTime() >= event.lastOutputAt.getTime())) return runs;
      return { ...runs, tasks: runs.tasks.map((candidate) => (candidate === task ? { ...task, lastOutputAt: event.lastOutputAt } : candidate)) };
    }
    case 'call_held': {
      // A held call of an external session is its turn; a hold that lapsed before this one ended that turn then.
      const current = runsAt(runs, at);
      if (current.lastTurnEndedAt !== null && current.lastTurnEndedAt.getTime() >= at.getTime()) return current;
      if (current.turn === null) return { ...current, turn: { id: callTurnId(event.callId), startedAt: at, heldUntil: event.heldUntil }, turnActivityAt: at };
      if (!isCallTurn(current.turn) || current.turn.heldUntil!.getTime() >= event.heldUntil.getTime()) return current;
      // A renewal (or another call held meanwhile) keeps the turn going; it is no sign of life for stalled.
      return { ...current, turn: { ...current.turn, heldUntil: event.heldUntil } };
    }
    case 'call_released': {
      // A release delivered before its hold (a redelivery) marks the end, so that late hold starts nothing.
      if (runs.turn === null) return { ...runs, lastTurnEndedAt: later(runs.lastTurnEndedAt, at) };
      if (!isCallTurn(runs.turn) || runs.turn.startedAt.getTime() > at.getTime()) return runs;
      return { ...runs, turn: null, turnActivityAt: null, lastTurnEndedAt: later(runs.lastTurnEndedAt, at), lastEndedAt: later(runs.lastEndedAt, at) };
    }
    default:
      return runs;
  }
}

/**
 * What decides stalled's due times and all_idle: which turn and tasks run, and when the last run ended. A change
 * of it makes the watchers of the session due; a task's newer output time only moves a stall later, which the
 * watcher's next evaluation (already due no later than the old stall) takes up.
 */
export function runsKey(runs: SessionRuns): string {
  return JSON.stringify([runs.turn?.id ?? null, runs.tasks.map((task) => task.id), runs.lastEndedAt?.getTime() ?? null]);
}

/**
 * The projection's rule: the row `event` leaves behind, or undefined when it changes nothing. A row may start
 * from any event of a session (its title comes with session_created, which may arrive later). JetStream may
 * deliver an older event after a newer one: a session_created older than the row does not overwrite it (it only
 * fills a missing title), and the runs' rules are written to hold for late events.
 */
export function projectSessionEvent(current: SessionActivity | undefined, event: SessionEvent): SessionActivity | undefined {
  const base: SessionActivity = current ?? {
    sessionId: event.sessionId,
    userId: event.userId,
    title: '',
    state: 'idle',
    lastEventAt: event.occurredAt,
    lastEventId: event.eventId,
    runs: NO_RUNS,
    archivedAt: null,
  };
  const newer = current === undefined || current.lastEventAt.getTime() <= event.occurredAt.getTime();
  const stamp = newer ? { lastEventAt: event.occurredAt, lastEventId: event.eventId } : {};
  if (event.type === 'session_created') {
    if (!newer) return base.title === '' ? { ...base, title: event.title } : undefined;
    // A new session's state is the service's word until its runs say otherwise.
    const running = base.runs.turn !== null || base.runs.tasks.length > 0;
    return { ...base, ...stamp, title: event.title, state: running ? stateOf(base.runs) : event.state };
  }
  if (event.type === 'archived') return { ...base, ...stamp, archivedAt: base.archivedAt ?? event.occurredAt };
  const runs = applyRuns(base.runs, event);
  if (runs === base.runs && current !== undefined) return newer ? { ...base, ...stamp } : undefined;
  return { ...base, ...stamp, runs, state: stateOf(runs) };
}
