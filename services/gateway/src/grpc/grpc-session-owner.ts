/**
 * SessionOwner over gRPC: encodes calls to relay.session.v1.SessionService and decodes its answers
 * into the gateway's types. Nothing more.
 */
import { callUnary } from '@relay/rpc';
import type { Session as SessionMessage } from '@relay/proto/relay/session/v1/session';
import { SessionOrigin, SessionState } from '@relay/proto/relay/session/v1/session';
import type { SessionServiceClient } from '@relay/proto/relay/session/v1/session_service';
import type { Caller, RelaySettings, Session, SessionOwner, SessionScope } from '../ports.ts';

/** How long a question to the session service may take before the caller hears it did not answer. */
const DEADLINE_MS = 10_000;

// A state this gateway does not know yet (a newer session service) shows as idle.
const STATES: Record<number, Session['state']> = {
  [SessionState.SESSION_STATE_UNSPECIFIED]: 'idle',
  [SessionState.SESSION_STATE_RUNNING_TURN]: 'running_turn',
  [SessionState.SESSION_STATE_BACKGROUND_ONLY]: 'background_only',
  [SessionState.SESSION_STATE_IDLE]: 'idle',
};

export class GrpcSessionOwner implements SessionOwner {
  constructor(private readonly client: SessionServiceClient) {}

  async authenticate(token: string): Promise<Caller> {
    const { caller } = await callUnary(this.client, 'authenticate', { token }, { deadlineMs: DEADLINE_MS });
    if (!caller?.userId) throw new Error('Authenticate answered without a caller');
    return caller.sessionId ? { userId: caller.userId, sessionId: caller.sessionId } : { userId: caller.userId };
  }

  async listSessions(userId: string, scope: SessionScope): Promise<Session[]> {
    const { sessions } = await callUnary(this.client, 'listSessions', { userId, scope }, { deadlineMs: DEADLINE_MS });
    return sessions.map(toSession);
  }

  async createExternalSession(userId: string, title: string): Promise<{ session: Session; token: string }> {
    const { session, token } = await callUnary(this.client, 'createExternalSession', { userId, title }, { deadlineMs: DEADLINE_MS });
    if (!session) throw new Error('CreateExternalSession answered without a session');
    return { session: toSession(session), token };
  }

  async getRelaySettings(): Promise<RelaySettings> {
    const { settings } = await callUnary(this.client, 'getRelaySettings', {}, { deadlineMs: DEADLINE_MS });
    if (!settings) throw new Error('GetRelaySettings answered without settings');
    return { agentSessionsEnabled: settings.agentSessionsEnabled, maxWaitSeconds: settings.maxWaitSeconds };
  }
}

function toSession(message: SessionMessage): Session {
  return {
    id: message.id,
    title: message.title,
    provider: message.provider,
    model: message.model,
    state: STATES[message.state] ?? 'idle',
    cwd: message.cwd,
    archived: message.archived,
    external: message.origin === SessionOrigin.SESSION_ORIGIN_EXTERNAL,
    messageCount: message.messageCount,
    lastActivityAt: message.lastActivityAt,
  };
}
