/**
 * Domain values as the proto messages the gRPC API and the events carry. Shared by grpc/ and store/
 * (which writes events), so it sits beside them rather than in either.
 */
import {
  SessionOrigin as SessionOriginMessage,
  SessionState as SessionStateMessage,
  type Caller as CallerMessage,
  type RelaySettings as RelaySettingsMessage,
  type Session as SessionMessage,
} from '@relay/proto/relay/session/v1/session';
import { SessionCreated } from '@relay/proto/relay/session/v1/events';
import type { Caller, RelaySettings, Session, SessionCreatedEvent, SessionOrigin, SessionState } from '../domain/entities.ts';

const STATES: Record<SessionState, SessionStateMessage> = {
  running_turn: SessionStateMessage.SESSION_STATE_RUNNING_TURN,
  background_only: SessionStateMessage.SESSION_STATE_BACKGROUND_ONLY,
  idle: SessionStateMessage.SESSION_STATE_IDLE,
};

const ORIGINS: Record<SessionOrigin, SessionOriginMessage> = {
  hosted: SessionOriginMessage.SESSION_ORIGIN_HOSTED,
  external: SessionOriginMessage.SESSION_ORIGIN_EXTERNAL,
};

/** A session as relay.session.v1.Session. */
export function toSessionMessage(session: Session): SessionMessage {
  return {
    id: session.id,
    userId: session.userId,
    title: session.title,
    provider: session.provider,
    model: session.model,
    state: STATES[session.state],
    cwd: session.cwd,
    archived: session.archived,
    origin: ORIGINS[session.origin],
    messageCount: session.messageCount,
    createdAt: session.createdAt,
    lastActivityAt: session.lastActivityAt,
  };
}

/** Settings as relay.session.v1.RelaySettings. */
export function toRelaySettingsMessage(settings: RelaySettings): RelaySettingsMessage {
  return { ...settings };
}

/** A caller as relay.session.v1.Caller; a user token leaves session_id empty. */
export function toCallerMessage(caller: Caller): CallerMessage {
  return { userId: caller.userId, sessionId: caller.sessionId ?? '' };
}

/** The JSON payload of relay.session.v1.session_created. */
export function toSessionCreatedPayload(event: SessionCreatedEvent): unknown {
  return SessionCreated.toJSON({ eventId: event.eventId, occurredAt: event.occurredAt, session: toSessionMessage(event.session) });
}
