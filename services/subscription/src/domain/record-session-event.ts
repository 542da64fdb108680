import { projectSessionEvent } from './project-session-event.ts';
import type { SessionActivityStore } from './ports.ts';
import type { SessionEvent } from './session-activity.ts';

/** Applies one delivered session event to the projection; false when this message was already applied. */
export function recordSessionEvent(store: SessionActivityStore, messageId: string, event: SessionEvent): Promise<boolean> {
  return store.updateOnce(messageId, event.sessionId, (current) => projectSessionEvent(current, event));
}
