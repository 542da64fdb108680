/**
 * JSON shapes of the domain's data in the database (events, watcher state, session runs): instants as ISO
 * strings, revived to Dates.
 */
import type { RelayEvent, WatcherState } from '../../domain/delivery/index.ts';
import type { SessionRuns } from '../../domain/session-activity.ts';

type Json = Record<string, unknown>;

/** A RelayEvent as stored. */
export function eventToJson(event: RelayEvent): Json {
  return { ...event, occurredAt: event.occurredAt.toISOString() };
}

/** A stored RelayEvent. */
export function eventFromJson(json: unknown): RelayEvent {
  const data = json as Json;
  return { ...data, occurredAt: new Date(String(data.occurredAt)) } as RelayEvent;
}

const dateOrNull = (value: unknown): Date | null => (typeof value === 'string' ? new Date(value) : null);

/** A WatcherState as stored. */
export function stateToJson(state: WatcherState): Json {
  return {
    wakeUps: state.wakeUps.map((at) => at.toISOString()),
    windowClosesAt: state.windowClosesAt?.toISOString() ?? null,
    capSlotAt: state.capSlotAt?.toISOString() ?? null,
    ownPrompts: state.ownPrompts,
  };
}

/** A stored WatcherState. */
export function stateFromJson(json: unknown): WatcherState {
  const data = (json ?? {}) as Json;
  return {
    wakeUps: Array.isArray(data.wakeUps) ? data.wakeUps.map((at) => new Date(String(at))) : [],
    windowClosesAt: dateOrNull(data.windowClosesAt),
    capSlotAt: dateOrNull(data.capSlotAt),
    ownPrompts: (data.ownPrompts ?? {}) as WatcherState['ownPrompts'],
  };
}

/** A session's runs as stored. */
export function runsToJson(runs: SessionRuns): Json {
  return {
    turn:
      runs.turn === null
        ? null
        : { id: runs.turn.id, startedAt: runs.turn.startedAt.toISOString(), ...(runs.turn.heldUntil ? { heldUntil: runs.turn.heldUntil.toISOString() } : {}) },
    turnActivityAt: runs.turnActivityAt?.toISOString() ?? null,
    tasks: runs.tasks.map((task) => ({ ...task, startedAt: task.startedAt.toISOString(), lastOutputAt: task.lastOutputAt?.toISOString() ?? null })),
    lastEndedAt: runs.lastEndedAt?.toISOString() ?? null,
    lastTurnEndedAt: runs.lastTurnEndedAt?.toISOString() ?? null,
    endedTaskIds: runs.endedTaskIds,
    ...(runs.lastEndedTraceParent ? { lastEndedTraceParent: runs.lastEndedTraceParent } : {}),
  };
}

/** Stored runs ({} for a row from before runs were kept). */
export function runsFromJson(json: unknown): SessionRuns {
  const data = (json ?? {}) as Json;
  const turn = data.turn as { id: string; startedAt: string; heldUntil?: string } | null | undefined;
  const tasks = Array.isArray(data.tasks) ? (data.tasks as Json[]) : [];
  return {
    turn: turn ? { id: turn.id, startedAt: new Date(turn.startedAt), ...(turn.heldUntil ? { heldUntil: new Date(turn.heldUntil) } : {}) } : null,
    turnActivityAt: dateOrNull(data.turnActivityAt),
    tasks: tasks.map((task) => ({
      id: String(task.id),
      description: String(task.description),
      startedAt: new Date(String(task.startedAt)),
      lastOutputAt: dateOrNull(task.lastOutputAt),
    })),
    lastEndedAt: dateOrNull(data.lastEndedAt),
    lastTurnEndedAt: dateOrNull(data.lastTurnEndedAt),
    endedTaskIds: Array.isArray(data.endedTaskIds) ? data.endedTaskIds.map(String) : [],
    ...(typeof data.lastEndedTraceParent === 'string' ? { lastEndedTraceParent: data.lastEndedTraceParent } : {}),
  };
}
