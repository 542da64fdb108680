/**
 * What the session service keeps, as the domain sees it (no Prisma, no proto).
 */

/** What a session is doing right now. */
export type SessionState = 'running_turn' | 'background_only' | 'idle';

/** How a session was started: run here by a provider, or by an MCP client the user runs. */
export type SessionOrigin = 'hosted' | 'external';

/** One agent conversation. */
export interface Session {
  id: string;
  userId: string;
  title: string;
  provider: string;
  model: string;
  origin: SessionOrigin;
  state: SessionState;
  cwd: string;
  archived: boolean;
  messageCount: number;
  createdAt: Date;
  lastActivityAt: Date;
}

/** A person who owns sessions. */
export interface User {
  id: string;
  name: string;
  createdAt: Date;
}

/** A user's personal token, or a token bound to one session. */
export type TokenKind = 'user' | 'session';

/** A bearer token as stored: only its sha256, never the token itself. */
export interface ApiToken {
  tokenHash: string;
  kind: TokenKind;
  userId: string;
  /** Set exactly when kind is 'session'. */
  sessionId: string | null;
  createdAt: Date;
}

/** The party behind a bearer token. */
export interface Caller {
  userId: string;
  /** The session whose agent calls; undefined for a user's personal token. */
  sessionId?: string;
}

/** The relay-wide settings; the stored row is the source of truth once seeded. */
export interface RelaySettings {
  agentSessionsEnabled: boolean;
  maxWaitSeconds: number;
  maxTurnMinutes: number;
}

/** The fact published on relay.session.v1.session_created; eventId is also the outbox id. */
export interface SessionCreatedEvent {
  eventId: string;
  occurredAt: Date;
  session: Session;
}
