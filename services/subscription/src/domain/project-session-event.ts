import type { SessionActivity, SessionEvent } from './session-activity.ts';

/**
 * The projection's rule: the row `event` leaves behind, or undefined when it changes nothing.
 * JetStream may deliver an older event after a newer one (redelivery after a nak), so an event that
 * happened before the row's last one never overwrites it.
 */
export function projectSessionEvent(current: SessionActivity | undefined, event: SessionEvent): SessionActivity | undefined {
  if (current !== undefined && current.lastEventAt.getTime() > event.occurredAt.getTime()) return undefined;
  return {
    sessionId: event.session.id,
    userId: event.session.userId,
    title: event.session.title,
    state: event.session.state,
    lastEventAt: event.occurredAt,
    lastEventId: event.eventId,
  };
}
