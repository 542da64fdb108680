/**
 * What this service knows of each session, kept from the session service's events (never from its
 * database). The rules for all_idle and stalled will read it.
 */

/** A session's state as the spec names it in list_sessions. */
export type SessionState = 'running_turn' | 'background_only' | 'idle';

/** One row of the projection: the session as its latest event described it. */
export type SessionActivity = {
  sessionId: string;
  userId: string;
  title: string;
  state: SessionState;
  lastEventAt: Date;
  lastEventId: string;
};

/** A session event, decoded from the bus. Later issues add the turn, task and archive events. */
export type SessionEvent = {
  type: 'session_created';
  eventId: string;
  occurredAt: Date;
  session: { id: string; userId: string; title: string; state: SessionState };
};
