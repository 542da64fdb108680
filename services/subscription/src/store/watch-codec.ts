/**
 * JSON shapes of the delivery module's data in the database: instants as ISO strings, revived to Dates.
 */
import type { RelayEvent, WatcherState } from '../domain/delivery/index.ts';

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
