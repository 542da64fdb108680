/** The stream this service declares and the subjects it publishes on. */
export const SESSION_EVENTS_STREAM = { name: 'SESSION_EVENTS', subjects: ['relay.session.v1.>'] };

export const SessionSubject = {
  SESSION_CREATED: 'relay.session.v1.session_created',
  TURN_QUEUED: 'relay.session.v1.turn_queued',
  ARCHIVED: 'relay.session.v1.archived',
  MESSAGE_WRITTEN: 'relay.session.v1.message_written',
} as const;
