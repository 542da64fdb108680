/**
 * What the gateway needs from the services that own the data. The gateway holds nothing itself:
 * every fact comes through these ports, implemented over gRPC in `src/grpc/`.
 */

/** The party behind a bearer token: a user, or (with `sessionId`) the agent of one of their sessions. */
export interface Caller {
  userId: string;
  sessionId?: string;
}

export type SessionState = 'running_turn' | 'background_only' | 'idle';

export const SESSION_SCOPES = ['active', 'archived', 'all'] as const;
export type SessionScope = (typeof SESSION_SCOPES)[number];

export interface Session {
  id: string;
  title: string;
  provider: string;
  model: string;
  state: SessionState;
  cwd: string;
  archived: boolean;
  external: boolean;
  messageCount: number;
  lastActivityAt: Date | undefined;
}

export interface RelaySettings {
  /** "Agents may start and use sessions on this relay". */
  agentSessionsEnabled: boolean;
  /** Longest wait per tool call. */
  maxWaitSeconds: number;
}

/** An "Agents may" level, lowest first. */
export const AGENT_LEVELS = ['off', 'read', 'read_and_prompt', 'full'] as const;
export type AgentLevel = (typeof AGENT_LEVELS)[number];

export interface PairedRelay {
  name: string;
  url: string;
  online: boolean;
  version: string;
  level: AgentLevel;
}

/** The session service: callers, sessions and the relay's settings. */
export interface SessionOwner {
  /** The caller behind a bearer token; an AppError of kind `unauthenticated` when there is none. */
  authenticate(token: string): Promise<Caller>;
  listSessions(userId: string, scope: SessionScope): Promise<Session[]>;
  /** A session for an MCP client the user runs themselves, with its token (shown once). */
  createExternalSession(userId: string, title: string): Promise<{ session: Session; token: string }>;
  getRelaySettings(): Promise<RelaySettings>;
}

/** The pairing service: the relays paired with this one. */
export interface PairingOwner {
  listPairedRelays(): Promise<PairedRelay[]>;
}
