import { SessionCreated } from '@relay/proto/relay/session/v1/events';
import { SessionState as SessionStateMessage } from '@relay/proto/relay/session/v1/session';
import { invalidEvent } from '../domain/errors.ts';
import type { SessionEvent, SessionState } from '../domain/session-activity.ts';

export const SessionSubject = {
  SESSION_CREATED: 'relay.session.v1.session_created',
} as const;

const STATES: Partial<Record<SessionStateMessage, SessionState>> = {
  [SessionStateMessage.SESSION_STATE_RUNNING_TURN]: 'running_turn',
  [SessionStateMessage.SESSION_STATE_BACKGROUND_ONLY]: 'background_only',
  [SessionStateMessage.SESSION_STATE_IDLE]: 'idle',
};

/**
 * A session event from its subject and JSON payload; undefined for a kind this service does not use (yet).
 * Throws SUBSCRIPTION_INVALID_EVENT for a payload that can never be applied, so the consumer terminates it.
 */
export function decodeSessionEvent(subject: string, data: unknown): SessionEvent | undefined {
  if (subject !== SessionSubject.SESSION_CREATED) return undefined;
  if (typeof data !== 'object' || data === null) throw invalidEvent(subject, 'payload is not an object');
  const message = SessionCreated.fromJSON(data);
  const session = message.session;
  if (message.eventId === '') throw invalidEvent(subject, 'eventId is missing');
  if (message.occurredAt === undefined || Number.isNaN(message.occurredAt.getTime())) throw invalidEvent(subject, 'occurredAt is missing');
  if (session === undefined || session.id === '') throw invalidEvent(subject, 'session.id is missing');
  if (session.userId === '') throw invalidEvent(subject, 'session.userId is missing');
  const state = STATES[session.state];
  if (state === undefined) throw invalidEvent(subject, `session.state ${String(session.state)} is not a known state`);
  return {
    type: 'session_created',
    eventId: message.eventId,
    occurredAt: message.occurredAt,
    session: { id: session.id, userId: session.userId, title: session.title, state },
  };
}
