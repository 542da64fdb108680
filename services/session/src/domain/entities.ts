/**
 * What the session service keeps, as the domain sees it (no Prisma, no proto).
 */

/** What a session is doing right now. */
export type SessionState = 'running_turn' | 'background_only' | 'idle';

/** How a session was started: run here by a provider, or by an MCP client the user runs. */
export type SessionOrigin = 'hosted' | 'external';

/** The relay modes of a conversation: in ask and plan every write action asks the user first. */
export const RELAY_MODES = ['agent', 'ask', 'plan'] as const;
export type RelayMode = (typeof RELAY_MODES)[number];

/** A session's place in its group. */
export type GroupRole = 'head' | 'member';

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

/** Who made a group: a user's group is never removed by agents; an agent's goes once it is empty. */
export type GroupMaker = 'user' | 'agent';

/** A session group of one user. */
export interface Group {
  id: string;
  userId: string;
  /** null = unnamed: it shows its head's title. */
  name: string | null;
  madeBy: GroupMaker;
  createdAt: Date;
  lastActivityAt: Date;
}

/** A group with what the API needs to show it. */
export interface GroupInfo extends Group {
  /** The head session's title, '' when it has no head. */
  headTitle: string;
  /** Sessions in it that are not deleted (archived ones count). */
  memberCount: number;
  /** Members that are not archived. */
  activeCount: number;
}

/** A session's group as list_sessions shows it. */
export interface GroupRef {
  id: string;
  /** What the sidebar shows: the name, or the head's title for a group nobody named. */
  name: string;
  role: GroupRole;
}

/** Another member of a group, as read_session lists it. */
export interface GroupMember {
  id: string;
  title: string;
  role: GroupRole;
  state: SessionState;
  archived: boolean;
}

/** Where a prompt came from; a prompt a user typed has hops 0 and no origin session. */
export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  /** Relay boundaries the chain of prompts has crossed. */
  hops: number;
  /**
   * The relays the chain of prompts came through, oldest first (the gateway appends its relay's name when it
   * passes a prompt on); the gateway's hop limit reads it. Empty for a prompt from a relay that predates it;
   * absent on rows (and schedules) written before it.
   */
  viaRelays?: string[];
}

/** Who wrote a message: the user, another agent, a relay event row, a schedule, or the session's own agent. */
export type MessageRole = 'user' | 'agent' | 'event' | 'schedule' | 'assistant';

/** One message of a conversation. */
export interface Message {
  id: string;
  sessionId: string;
  role: MessageRole;
  text: string;
  provenance: Provenance | null;
  /** The model that wrote an assistant message; '' otherwise. */
  model: string;
  /** The conversation whose agent sent it, if one did. */
  senderSessionId: string | null;
  createdAt: Date;
}

export type TurnStatus = 'queued' | 'running' | 'waiting_for_answer' | 'done' | 'error' | 'stopped';

/** Statuses of a turn that is not over: it holds its session (busy, at work). */
export const OPEN_TURN_STATUSES: readonly TurnStatus[] = ['queued', 'running', 'waiting_for_answer'];

/** A question a turn waits on. */
export interface PendingQuestion {
  id: string;
  /** 'ask_user' for a card the session waits on, 'ask' for a non-blocking ask. */
  kind: string;
  question: string;
  options: string[];
}

/** One turn: the run of the agent a queued message starts. */
export interface Turn {
  id: string;
  sessionId: string;
  messageId: string;
  status: TurnStatus;
  mode: RelayMode;
  provenance: Provenance | null;
  senderSessionId: string | null;
  replyText: string;
  replyModel: string;
  error: string;
  inFlight: string;
  pendingQuestions: PendingQuestion[];
  stopRequested: boolean;
  queuedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** A paired relay unlocked in a conversation: by the user mentioning it, or by an agent on that relay writing to it. */
export interface RelayUnlock {
  relay: string;
  byMention: boolean;
}

/** A conversation's standing permission, e.g. to change sessions it did not start on a relay. */
export interface ConversationGrant {
  sessionId: string;
  kind: 'update_others' | 'started_remote';
  /** 'this' for this relay. */
  relay: string;
  createdAt: Date;
}

/** A person who owns sessions. */
/** Admins change what is relay-wide (relay settings, pairings) and add users; members use their own sessions. */
export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface User {
  id: string;
  name: string;
  role: UserRole;
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
  /** When it stops working: set only on a console sign-in's token (sign-in-links.ts). */
  expiresAt: Date | null;
}

/** A one-time console sign-in link as stored: only the sha256 of its secret. */
export interface SignInLink {
  linkHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The party behind a bearer token. */
export interface Caller {
  userId: string;
  /** The role of the token's user (a session's token carries its user's role too). */
  role: UserRole;
  /** The session whose agent calls; undefined for a user's personal token. */
  sessionId?: string;
  /** That session is an external one (its agent runs outside the relay). */
  external?: boolean;
}

/** The relay-wide settings; the stored row is the source of truth once seeded. */
export interface RelaySettings {
  /** "Agents may start and use sessions on this relay". */
  agentSessionsEnabled: boolean;
  /** Longest wait per tool call. */
  maxWaitSeconds: number;
  /** Max turn duration. */
  maxTurnMinutes: number;
  /** The quiet setting for tasks: minutes without output after which a running task counts as quiet. */
  taskQuietMinutes: number;
}

/** The fact published on relay.session.v1.turn_queued; eventId is also the outbox id. */
export interface TurnQueuedEvent {
  eventId: string;
  occurredAt: Date;
  sessionId: string;
  userId: string;
  turnId: string;
  messageId: string;
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

/** Where this relay stands: its name and the folders sessions may use. */
export interface RelayPlace {
  /** RELAY_NAME, as refusals and provenance name it. */
  name: string;
  defaultCwd: string;
  allowedRoots: readonly string[];
}
