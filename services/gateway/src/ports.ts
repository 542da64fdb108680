/**
 * What the gateway needs from the services that own the data. The gateway holds nothing itself:
 * every fact comes through these ports, implemented over gRPC in `src/grpc/`.
 */

/** Admins change what is relay-wide (relay settings, pairings) and add users; members use their own sessions. */
export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** The party behind a bearer token: a user, or (with `sessionId`) the agent of one of their sessions. */
export interface Caller {
  userId: string;
  sessionId?: string;
  /** That session is an external one (an MCP client the user runs): its results carry a pending note. */
  external?: boolean;
}

/** A caller as a bearer token names it, with its user's role (which the user API checks; relay_tool does not). */
export interface AuthenticatedCaller extends Caller {
  role: UserRole;
}

/** A new user and their personal token, shown this once (only its hash is kept). */
export interface CreatedUser {
  userId: string;
  role: UserRole;
  token: string;
}

/** A user as an admin sees them: never their tokens. */
export interface UserSummary {
  id: string;
  name: string;
  role: UserRole;
  createdAt: Date;
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
  /** "" for the provider's default. */
  effort: string;
  /** The relay mode of this conversation: "agent", "ask" or "plan". */
  mode: string;
  /** A cloud session's repository and branch; "" otherwise. */
  repo: string;
  branch: string;
  group: GroupRef | undefined;
  /** The conversation whose agent started it ("via agent"); unset when a user did. */
  startedBy: { id: string; title: string } | undefined;
  mayCreateSessions: boolean;
  /** Its background shell tasks: running, or ended within the hour. */
  tasks: SessionTask[];
}

/** A background shell task of a session. */
export interface SessionTask {
  id: string;
  description: string;
  /** "local_bash". */
  type: string;
  /** "running", "completed", "failed" or "stopped". */
  status: string;
  exitCode: number | null;
  startedAt: Date | undefined;
  endedAt: Date | undefined;
  /** Whether there is output to read with read_task_output. */
  hasOutput: boolean;
  /** Why it failed without an exit code. */
  reason: string;
  /** While it runs. */
  health: { minutesSinceOutput: number; quiet: boolean; quietAfterMinutes: number } | undefined;
  counts: TestCounts | undefined;
}

/** A test run's counts, read from a task's output. */
export interface TestCounts {
  runner: string;
  passed: number;
  failed: number;
  skipped: number;
  final: boolean;
}

/** The end of a task's output (read_task_output). */
export interface TaskOutput {
  task: SessionTask;
  tail: string[];
  truncated: boolean;
  stall: { minutes: number; since: Date | undefined; quiet: boolean; quietAfterMinutes: number } | undefined;
  counts: TestCounts | undefined;
  notes: string[];
}

/** A session's place in a session group. */
export interface GroupRef {
  id: string;
  /** The group's name, or its head session's title when nobody named it. */
  name: string;
  /** "head" or "member". */
  role: string;
}

/** A session group as relay_info lists it. */
export interface GroupSummary {
  id: string;
  name: string;
  memberCount: number;
}

/** Another member of a session's group. */
export interface GroupMember {
  id: string;
  title: string;
  role: string;
  state: SessionState;
  archived: boolean;
}

/** Where a prompt came from (decisions.md, Across relays). A user's prompt has hops 0 and no origin session. */
export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  hops: number;
  /**
   * The relays the chain of prompts came through, oldest first (each relay that passes it on appends its
   * own name); empty from a relay that predates it, which `relayChain` reads as [originRelay].
   */
  viaRelays: string[];
}

/** A provider of the catalogue, as relay_info shows it. */
export interface ProviderInfo {
  id: string;
  name: string;
  available: boolean;
  /** Why it is not available. */
  reason: string;
  defaultModel: string;
  models: string[];
  efforts: string[];
  /** False while the provider's model list is not known (discovery has not run or failed). */
  modelsKnown: boolean;
}

/** What this relay offers for a new session. */
export interface RelayInfo {
  providers: ProviderInfo[];
  defaultCwd: string;
  recentCwds: string[];
  modes: string[];
  /** At most 50, latest activity first. */
  groups: GroupSummary[];
  groupsTotal: number;
  /** What each provider's plan has left (the usage action); undefined from a session service that does not report it. */
  usage?: UsageReport | undefined;
}

/** One meter of a provider's plan this month; allowance, remaining and utilization are null without an allowance. */
export interface UsageMeter {
  name: string;
  used: number;
  allowance: number | null;
  remaining: number | null;
  utilization: number | null;
  resetsAt: Date | null;
}

/** What a provider's plan has left: never an account name, address or token. */
export interface ProviderUsage {
  provider: string;
  /** ok | limit_reached | paused | not_tracked | not_set_up */
  status: string;
  reason: string;
  meters: UsageMeter[];
  pausedUntil: Date | null;
}

export interface UsageReport {
  providers: ProviderUsage[];
  claudeUsageLimitPaused: boolean;
}

/** One message of a conversation. */
export interface ChatMessage {
  id: string;
  /** "user", "agent", "event", "schedule" or "assistant". */
  role: string;
  text: string;
  provenance: Provenance | undefined;
  createdAt: Date | undefined;
  /** The model that wrote an assistant message; "" otherwise. */
  model: string;
}

/** A question waiting for an answer in a session. */
export interface PendingQuestion {
  id: string;
  /** "ask_user" for a card the session waits on, "ask" for a non-blocking ask. */
  kind: string;
  question: string;
  options: string[];
}

/** A session, its recent messages and what goes on there. */
export interface SessionRead {
  session: Session;
  messages: ChatMessage[];
  /** The reply still being written; "" when none. */
  inFlight: string;
  pendingQuestions: PendingQuestion[];
  /** The other members of its group, at most 50. */
  groupMembers: GroupMember[];
}

/** Where a turn stands (decisions.md, Result status). */
export const TURN_STATUSES = ['queued', 'running', 'waiting_for_answer', 'done', 'error', 'stopped'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** The outcome of the turn a message started, as far as it has come. */
export interface TurnResult {
  sessionId: string;
  messageId: string;
  status: TurnStatus;
  replyText: string;
  replyModel: string;
  error: string;
  pendingQuestions: PendingQuestion[];
}

/** One message of a wait: a keep-alive while the turn goes on, or its result (the last one). */
export type WaitEvent = { kind: 'progress'; seconds: number } | { kind: 'result'; result: TurnResult };

/** Who asks the session service to act: a user, or (with callerSessionId) the agent of one of their sessions. */
export interface Actor {
  userId: string;
  /** The conversation whose agent acts; unset when the user does. */
  callerSessionId?: string;
}

/** A new session and its first prompt; unset fields follow the caller's session or the relay's defaults. */
export interface CreateSessionInput extends Actor {
  text: string;
  title?: string;
  provider?: string;
  model?: string;
  effort?: string;
  mode?: string;
  cwd?: string;
  repo?: string;
  branch?: string;
  /** A group id or name. */
  group?: string;
  provenance?: Provenance;
  /** Paired relays a user's first message mentions: unlocked in the new conversation. */
  mentionedRelays?: string[];
  /** Run every check and create nothing. */
  dryRun: boolean;
}

export interface CreatedSession {
  /** As created, or as it would be on a dry run. */
  session: Session;
  /** The queued first prompt; "" on a dry run. */
  messageId: string;
  modelNote: string;
  groupWarning: string;
  /** The first session the calling conversation starts: the user is asked first. */
  firstStartedByCaller: boolean;
}

/** A prompt for an existing session. */
export interface SendMessageInput extends Actor {
  sessionId: string;
  text: string;
  /** "claude" or "claude-api": switches a Claude session's billing with this message. */
  provider?: string;
  model?: string;
  effort?: string;
  /** The mode the turn runs in; unset passes the caller's own. */
  mode?: string;
  provenance?: Provenance;
  /** Paired relays a user's message mentions: unlocked in the conversation. */
  mentionedRelays?: string[];
  dryRun: boolean;
}

export interface SentMessage {
  session: Session;
  /** "" on a dry run. */
  messageId: string;
  modelNote: string;
  /** "API key" or "subscription" when the message switches billing; "" otherwise. */
  billingSwitch: string;
}

/** The turn to wait for, for at most waitSeconds on the relay clock. */
export interface WaitInput extends Actor {
  sessionId: string;
  messageId: string;
  waitSeconds: number;
}

/** Settings to change; an unset field is left as it is. */
export interface SettingsChange {
  model?: string;
  effort?: string;
  mode?: string;
  autoCompactWindow?: string;
  title?: string;
  group?: string;
  thinkingEnabled?: boolean;
  thinkingDisplay?: string;
  cwd?: string;
}

export interface UpdateSessionInput extends Actor {
  sessionId: string;
  change: SettingsChange;
  /** The user allowed this conversation to change sessions it did not start. */
  allowed: boolean;
  /** A paired relay's calling conversation (no calling session here); it changes freely only sessions it started. */
  remoteCaller?: Provenance;
  dryRun: boolean;
}

/** A session's settings as update_session reports them. */
export interface SessionSettings {
  model: string;
  effort: string;
  mode: string;
  autoCompactWindow: string;
  title: string;
  group: GroupRef | undefined;
  thinkingEnabled: boolean;
  thinkingDisplay: string;
  cwd: string;
}

export interface UpdatedSession {
  settings: SessionSettings;
  /** What changed (or, on a dry run, would change). */
  changed: string[];
  /** Set when the folder changed: whether the CLI was restarted. */
  relaunched: boolean | undefined;
  /** Set when a group was made for this call. */
  groupCreated: GroupSummary | undefined;
  note: string;
  /** On a dry run: the user must Allow this conversation to change the session first. */
  needsAllow: boolean;
}

/** What policy needs to know about a calling conversation. */
export interface Conversation {
  session: Session;
  /** A turn runs there now, so a card can show. */
  hasRunningTurn: boolean;
  /** The provenance of that running turn. */
  turnProvenance: Provenance | undefined;
  startedSessions: number;
  /** The paired relays unlocked in this conversation (spec, Locked and unlocked). */
  unlockedRelays: RelayUnlock[];
  /** The paired relays where the user allowed this conversation to change sessions it did not start (update_session). */
  updateAllowedRelays: string[];
  /** An external session: what was written into it that its agent has not read (wake-ups, answers, firings). */
  pending?: PendingMessages;
}

/** Messages waiting unread for an external session's agent: how many, and the line that says what each of the first is. */
export interface PendingMessages {
  count: number;
  previews: string[];
}

/** A paired relay unlocked in a conversation: by the user mentioning it, or by an agent of that relay writing to it. */
export interface RelayUnlock {
  relay: string;
  byMention: boolean;
}

/** The owner's switches on one of their conversations; an unset field is left as it is. */
export interface ConversationOptions {
  mode?: string;
  mayCreateSessions?: boolean;
}

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

/** The relay's settings after a change, and the fields (as the API names them) whose value changed. */
export interface UpdatedRelaySettings {
  settings: RelaySettings;
  changed: string[];
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
  authenticate(token: string): Promise<AuthenticatedCaller>;
  /** The relay's users, oldest first. */
  listUsers(): Promise<UserSummary[]>;
  /** A new user with their personal token (shown once); REMOTE_RELAY_INVALID_INPUT for a bad name or role. */
  createUser(name: string, role: UserRole | undefined): Promise<CreatedUser>;
  /**
   * Removes a user for the admin `callerUserId`: their tokens stop working, their sessions are archived.
   * REMOTE_RELAY_NOT_FOUND, REMOTE_RELAY_FORBIDDEN (themselves), REMOTE_RELAY_LAST_ADMIN.
   */
  removeUser(userId: string, callerUserId: string): Promise<{ user: UserSummary; archivedSessions: number }>;
  /** A new personal token for the user (shown once; the old one stops working), or none with `revoke`. REMOTE_RELAY_NOT_FOUND. */
  rotateUserToken(userId: string, revoke: boolean): Promise<{ token: string }>;
  /** A one-time web console sign-in link's secret for the user (shown once), and when it stops working. REMOTE_RELAY_NOT_FOUND. */
  createSignInLink(userId: string): Promise<{ link: string; expiresAt: Date }>;
  /** Redeems a sign-in link once: a user token for the console's sign-in, until expiresAt. UNAUTHENTICATED for a link unknown, used or expired. */
  redeemSignInLink(link: string): Promise<{ token: string; caller: AuthenticatedCaller; expiresAt: Date }>;
  /** Signing out of the console: a token a sign-in link made stops working (true); any other is left alone (false). */
  endSignIn(token: string): Promise<boolean>;
  /** A new token for the user's session (shown once; the old ones stop working), or none with `revoke`. REMOTE_RELAY_NOT_FOUND, REMOTE_RELAY_ARCHIVED. */
  rotateSessionToken(userId: string, sessionId: string, revoke: boolean): Promise<{ token: string }>;
  listSessions(userId: string, scope: SessionScope): Promise<Session[]>;
  /** A session for an MCP client the user runs themselves, with its token (shown once). */
  createExternalSession(userId: string, title: string): Promise<{ session: Session; token: string }>;
  getRelaySettings(): Promise<RelaySettings>;
  /** Changes the relay's settings (a field left out keeps its value); REMOTE_RELAY_INVALID_INPUT names a bad one. */
  updateRelaySettings(change: Partial<RelaySettings>): Promise<UpdatedRelaySettings>;
  /** What this relay offers the user for a new session. */
  getRelayInfo(userId: string): Promise<RelayInfo>;
  /** A session's `last` messages (0 = the default) and what goes on there. */
  /** `readerSessionId`: the agent's conversation that reads; an external session reading itself marks its pending messages read. */
  readSession(userId: string, sessionId: string, last: number, readerSessionId?: string): Promise<SessionRead>;
  createSession(input: CreateSessionInput): Promise<CreatedSession>;
  sendMessage(input: SendMessageInput): Promise<SentMessage>;
  /** Progress while the turn goes on, then its result; ends early, without a result, when `signal` aborts. */
  wait(input: WaitInput, signal: AbortSignal): AsyncIterable<WaitEvent>;
  updateSession(input: UpdateSessionInput): Promise<UpdatedSession>;
  /** Stops the turn running in a session; false when nothing was running. */
  stopTurn(actor: Actor, sessionId: string): Promise<{ stopRequested: boolean }>;
  archiveSession(actor: Actor, sessionId: string): Promise<Session>;
  /** The user brings back one of their archived sessions (its token works again). REMOTE_RELAY_NOT_FOUND. */
  unarchiveSession(userId: string, sessionId: string): Promise<Session>;
  getConversation(sessionId: string): Promise<Conversation>;
  setConversationOptions(userId: string, sessionId: string, options: ConversationOptions): Promise<Session>;
  /** The loop guard: counts one prompt the conversation sends to another agent (dryRun: only whether one fits). */
  countAgentPrompt(sessionId: string, dryRun: boolean): Promise<AgentPromptCount>;
  /** The user allowed 30 more prompts on the loop-guard card. */
  grantAgentPrompts(sessionId: string): Promise<void>;
  /** The conversation's agent started a session on a paired relay: it counts among the sessions it started. */
  noteRemoteSessionStarted(sessionId: string, relay: string, remoteSessionId: string): Promise<void>;
  /** The user allowed the conversation to change sessions it did not start on a paired relay: later changes there ask no card. */
  noteRemoteUpdateAllowed(sessionId: string, relay: string): Promise<void>;
  /**
   * An external session's call `callId` is in flight (its running turn): held for `leaseMs`, renewed by calling
   * again well within it. REMOTE_RELAY_NOT_FOUND, REMOTE_RELAY_INVALID_INPUT (not an external session).
   */
  holdExternalCall(sessionId: string, callId: string): Promise<{ leaseMs: number }>;
  /** The call ended: its hold goes. */
  releaseExternalCall(sessionId: string, callId: string): Promise<void>;
  /** The last `lines` (0 = 50) of a task's output, as the console shows it. */
  readTaskOutput(userId: string, sessionId: string, taskId: string, lines: number): Promise<TaskOutput>;
}

/** A conversation's loop guard (decisions.md, Across relays). */
export interface AgentPromptCount {
  sent: number;
  allowed: number;
  /** No more prompts fit until the user allows more. */
  usedUp: boolean;
}

/** The pairing service: the relays paired with this one. */
export interface PairingOwner {
  listPairedRelays(): Promise<PairedRelay[]>;
  /** A one-time code a user of another relay pairs with (shown once). */
  createPairingCode(userId: string): Promise<{ code: string; expiresAt: Date }>;
  /** Pairs with the relay at `url` using its code; this relay introduces itself as `self`. */
  pair(input: { userId: string; url: string; code: string; self: RelayIdentity }): Promise<PairedRelay>;
  /** The other side of pair (POST /relay/v1/pair): spends the code and answers this relay and a token for the caller. */
  acceptPairing(input: { code: string; name: string; url: string; version: string; token: string; self: RelayIdentity }): Promise<{ name: string; version: string; token: string }>;
  unpair(name: string): Promise<PairedRelay>;
  setAgentLevel(name: string, level: AgentLevel): Promise<PairedRelay>;
  getPairingSettings(): Promise<PairingSettings>;
  setPairingSettings(change: Partial<PairingSettings>): Promise<PairingSettings>;
  /** The paired relay behind a relay token; an AppError of kind `unauthenticated` (REMOTE_RELAY_AUTH) otherwise. */
  authenticateRelay(token: string): Promise<RelayCaller>;
  /** One relay_tool call answered by a paired relay (its result as it sent it). */
  forwardToolCall(call: ForwardedCall): Promise<{ result: Record<string, unknown>; version: string }>;
}

/** This relay as it introduces itself to another. */
export interface RelayIdentity {
  name: string;
  url: string;
  version: string;
}

/** This relay's pairing settings. */
export interface PairingSettings {
  /** "Accept prompts from other relays' agents". */
  acceptPrompts: boolean;
}

/** A paired relay calling /relay/v1, as paired here, and the local user its calls act for. */
export interface RelayCaller {
  relayName: string;
  userId: string;
  acceptPrompts: boolean;
}

/** A relay_tool call for a paired relay. */
export interface ForwardedCall {
  relay: string;
  action: string;
  /** The call's arguments, `relay` set to "this". */
  args: Record<string, unknown>;
  /** The prompt's provenance as it crosses (hops already counting this boundary). */
  provenance: Provenance;
  /** How long the other relay may take (its wait included). */
  timeoutSeconds: number;
  /** The user allowed it on a card here (update_session on a session this conversation did not start). */
  allowed: boolean;
  /** Only check the call there (before a card is shown here); nothing changes. */
  dryRun: boolean;
}

export type CardKind = 'approval' | 'question';
export type CardStatus = 'pending' | 'allowed' | 'denied' | 'answered' | 'dismissed' | 'cancelled';

/** A card shown in a session and in its user's Inbox. */
export interface Card {
  id: string;
  userId: string;
  sessionId: string;
  kind: CardKind;
  title: string;
  lines: string[];
  options: string[];
  status: CardStatus;
  answer: string;
  choices: string[];
  createdAt: Date | undefined;
  decidedAt: Date | undefined;
}

/** A card to show in a session. */
export interface CardRequest {
  userId: string;
  sessionId: string;
  kind: CardKind;
  title: string;
  lines: string[];
  options?: string[];
  /**
   * An external session's call (a fingerprint of its action and arguments): the same call made again gets
   * this card back, pending or with its decision (used once), instead of a second card.
   */
  callKey?: string;
}

/** One message of a card wait: a keep-alive, or the card (the last one, pending when the wait ran out). */
export type CardEvent = { kind: 'progress'; seconds: number } | { kind: 'card'; card: Card };

/** The question service: cards the user decides. */
export interface QuestionOwner {
  /** Shows a card and returns it pending. */
  raiseCard(request: CardRequest): Promise<Card>;
  /** Progress until the card is decided or waitSeconds run out, then the card; ends early when `signal` aborts. */
  awaitCard(cardId: string, waitSeconds: number, signal: AbortSignal): AsyncIterable<CardEvent>;
  /** The user's cards, newest first: all of them (the Inbox) or one session's, optionally only the pending ones. */
  listCards(userId: string, filter: CardFilter): Promise<Card[]>;
  /** The user (or, with agentSessionId, another session's agent) decides a pending card; dryRun only checks. */
  decideCard(decision: CardDecision): Promise<Card>;
  /** A new ask (dryRun: every check, nothing stored). */
  ask(request: AskRequest): Promise<Ask>;
  /** A user's asks, newest first: a conversation's, those about a session, or (neither) the pending ones. */
  listAsks(userId: string, filter: AskFilter): Promise<Ask[]>;
  /** The asking conversation takes back a pending ask. */
  withdrawAsk(userId: string, askingSessionId: string, askId: string): Promise<Ask>;
  /** The user answers or dismisses an ask. */
  answerAsk(answer: AskAnswer): Promise<Ask>;
}

export type AskStatus = 'pending' | 'answered' | 'dismissed' | 'withdrawn' | 'ended';

/** A question an agent asked without blocking (spec, Questions that don't block). */
export interface Ask {
  /** ask_… */
  id: string;
  userId: string;
  askingSessionId: string;
  /** The session it is about: the asking conversation itself, or the one it asked on behalf of. */
  aboutSessionId: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  status: AskStatus;
  answer: string;
  choice: string;
  via: string;
  createdAt: Date | undefined;
  endedAt: Date | undefined;
}

export interface AskRequest {
  userId: string;
  askingSessionId: string;
  /** Another session to ask on behalf of; unset for the asking conversation itself. */
  aboutSessionId?: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
  dryRun: boolean;
}

/** Which asks: a conversation's, those about a session, or neither (every pending one, the Inbox). */
export interface AskFilter {
  askingSessionId?: string;
  aboutSessionId?: string;
  pendingOnly: boolean;
}

/** The user's answer to an ask: answer text, a choice among its options, or both; or dismiss. */
export interface AskAnswer {
  userId: string;
  askId: string;
  decision: 'answer' | 'dismiss';
  answer?: string;
  choice?: string;
}

/** Which of a user's cards. */
export interface CardFilter {
  sessionId?: string;
  pendingOnly: boolean;
}

/** allow | deny (approval cards), answer | dismiss (question cards). */
export const CARD_DECISIONS = ['allow', 'deny', 'answer', 'dismiss'] as const;

/** A user's decision on a card; an answer carries answer text, choices among the card's options, or both. */
export interface CardDecision {
  userId: string;
  cardId: string;
  decision: (typeof CARD_DECISIONS)[number];
  answer?: string;
  choices?: string[];
  /** Set when another session's agent answers a question card (answer_question). */
  agentSessionId?: string;
  /** Run every check and decide nothing. */
  dryRun?: boolean;
}

/** A daily quiet window of a subscription. */
export interface QuietHours {
  from: string;
  to: string;
  tz: string;
}

/** A subscription as the subscription service keeps it. */
export interface WatchSubscription {
  id: string;
  watcherSessionId: string;
  scope: 'sessions' | 'all';
  sessions: { id: string; title: string }[];
  exclude: string[];
  events: string[];
  once: boolean;
  match: string;
  stalledMinutes: number;
  heartbeatMinutes: number | null;
  digestMinutes: number | null;
  quietHours: QuietHours | null;
  endedAt: Date | undefined;
  endReason: string;
  heldCount: number;
  nextDeliveryAt: Date | undefined;
  /** The paired relay whose sessions it watches; '' = this relay. */
  relay: string;
}

/** subscribe's arguments, checked by the subscription service; `resolved` are the listed sessions as read. */
export interface SubscribeInput {
  userId: string;
  watcherSessionId: string;
  sessions: string[];
  exclude: string[];
  events: string[];
  once: boolean;
  match: string;
  stalledMinutes: number;
  heartbeatMinutes: number;
  digestMinutes: number;
  quietHours: QuietHours | undefined;
  resolved: { id: string; title: string }[];
  dryRun: boolean;
  /** The paired relay whose sessions are watched (its name); absent or '' = this relay. */
  relay?: string;
}

/** One event of a paired relay's session, as that relay rendered it (kind: turn_end, question_asked, …). */
export interface RemoteWatchEvent {
  id: string;
  kind: string;
  sessionId: string;
  sessionTitle: string;
  text: string;
  /** turn_end's status, a task's exit; '' when the kind has none. */
  status: string;
  occurredAt: Date;
}

/** The subscription service: a conversation's subscriptions to sessions. */
export interface SubscriptionOwner {
  subscribe(input: SubscribeInput): Promise<{ subscription: WatchSubscription; firstForWatcher: boolean }>;
  unsubscribe(userId: string, watcherSessionId: string, subscriptionId: string | 'all'): Promise<string[]>;
  listSubscriptions(userId: string, watcherSessionId: string): Promise<WatchSubscription[]>;
  /** Every active subscription of the user's conversations (the session list's watched badges and "watching N"). */
  listUserSubscriptions(userId: string): Promise<WatchSubscription[]>;
  transferSubscriptions(userId: string, watcherSessionId: string, fromSessionId: string, dryRun: boolean): Promise<WatchSubscription[]>;
  /** No echo: where the watcher stands with a prompt's turn (its call or wait runs, got the finished reply, or neither). */
  notePromptState(watcherSessionId: string, messageId: string, state: 'waiting' | 'reply_returned' | 'not_waiting'): Promise<void>;
  /**
   * A paired relay's events for a subscription watching it; idempotent per (subscription, event id). replayed: held
   * there while the link was down (one row tagged replayed); dropped: older events it dropped past its newest 500.
   */
  ingestRemoteEvents(input: { subscriptionId: string; relay: string; events: RemoteWatchEvent[]; replayed: boolean; dropped: number }): Promise<{ accepted: number; duplicates: number }>;
  /** The link to a paired relay went down (a link_lost row) or came back (a link_restored line); changed: false when it already was. */
  reportLinkState(input: { subscriptionId: string; relay: string; online: boolean; at: Date }): Promise<{ changed: boolean }>;
  /** Ends the subscriptions watching `relay` (of userId, or of every user when null) with reason "unpaired". */
  endRelaySubscriptions(userId: string | null, relay: string): Promise<string[]>;
}
