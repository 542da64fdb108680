import { projectSessionEvent } from '../domain/project-session-event.ts';
import type { SessionActivityStore } from './ports.ts';
import type { SessionEvent } from '../domain/session-activity.ts';

/** A delivered session event and its message id. */
export type DeliveredSessionEvent = { messageId: string; event: SessionEvent };

/** Applies delivered session events to the projection, in one transaction; answers the message ids not applied before. */
export function recordSessionEvents(store: SessionActivityStore, events: readonly DeliveredSessionEvent[]): Promise<Set<string>> {
  return store.updateEachOnce(events.map(({ messageId, event }) => ({ messageId, sessionId: event.sessionId, update: (current) => projectSessionEvent(current, event) })));
}

/** Applies one delivered session event to the projection; false when this message was already applied. */
export async function recordSessionEvent(store: SessionActivityStore, messageId: string, event: SessionEvent): Promise<boolean> {
  return (await recordSessionEvents(store, [{ messageId, event }])).has(messageId);
}
