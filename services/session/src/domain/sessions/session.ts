/** A session, as the domain sees it (no Prisma, no proto), and the facts published about it. */
import type { GroupRef, GroupRole } from '../groups/group.ts';

/** What a session is doing right now. */
export type SessionState = 'running_turn' | 'background_only' | 'idle';

/** How a session was started: run here by a provider, or by an MCP client the user runs. */
export type SessionOrigin = 'hosted' | 'external';

/** The relay modes of a conversation: in ask and plan every write action asks the user first. */
export const RELAY_MODES = ['agent', 'ask', 'plan'] as const;
export type RelayMode = (typeof RELAY_MODES)[number];

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
  /** A reasoning effort the model offers, or '' for the provider's default. */
  effort: string;
  mode: RelayMode;
  /** claude-cloud only: the repository and branch it works on; '' otherwise. */
  repo: string;
  branch: string;
  groupId: string | null;
  /** Set exactly when groupId is. */
  groupRole: GroupRole | null;
  /** The conversation whose agent started it ("via agent"); null when a user did. */
  startedBySessionId: string | null;
  /** The owner's switch: this agent-started session's agent may start sessions itself. */
  mayCreateSessions: boolean;
  /** Claude's auto-compaction window: 'auto' or a number of tokens, as text. */
  autoCompactWindow: string;
  thinkingEnabled: boolean;
  thinkingDisplay: ThinkingDisplay;
  /** A provider worker runs for the session (the turn runtime sets it). */
  workerStarted: boolean;
}

/** The settings a new session starts with unless its creator chose otherwise. */
export const NEW_SESSION_SETTINGS = {
  effort: '',
  mode: 'agent',
  repo: '',
  branch: '',
  groupId: null,
  groupRole: null,
  startedBySessionId: null,
  mayCreateSessions: false,
  autoCompactWindow: 'auto',
  thinkingEnabled: true,
  thinkingDisplay: 'summarized',
  workerStarted: false,
} as const satisfies Partial<Session>;

export const THINKING_DISPLAYS = ['summarized', 'full', 'hidden'] as const;
export type ThinkingDisplay = (typeof THINKING_DISPLAYS)[number];

/** A session as the API shows it: with its group resolved and the title of the conversation that started it. */
export interface SessionView extends Session {
  group: GroupRef | null;
  /** '' when a user started it (or the starter is gone). */
  startedByTitle: string;
}

/** The fact published on relay.session.v1.archived. */
export interface SessionArchivedEvent {
  eventId: string;
  occurredAt: Date;
  sessionId: string;
  userId: string;
}

/** The fact published on relay.session.v1.session_created; eventId is also the outbox id. */
export interface SessionCreatedEvent {
  eventId: string;
  occurredAt: Date;
  session: Session;
}

/** The settings of a session that update_session, send and the owner may change. */
export type SessionChanges = Partial<Omit<Session, 'id' | 'userId' | 'origin' | 'createdAt'>>;
