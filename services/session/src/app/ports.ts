/**
 * What the use cases need from the outside world. Adapters in store/ and crypto/ implement these;
 * unit tests use in-memory fakes.
 */
import type { Group, GroupInfo, GroupMember } from '../domain/groups/group.ts';
import type { ConversationGrant, Message, Provenance, RelayUnlock } from '../domain/sessions/conversation.ts';
import type { Session, SessionArchivedEvent, SessionChanges, SessionCreatedEvent, SessionView } from '../domain/sessions/session.ts';
import type { RelayPlace, RelaySettings } from '../domain/settings/relay-settings.ts';
import type { LastTurn, Turn, TurnQueuedEvent } from '../domain/turns/turn.ts';
import type { ApiToken, SignInLink, TokenKind, User } from '../domain/users/user.ts';
import type { ProviderCatalogue } from './catalogue/ports.ts';
import type { PendingNote } from '../domain/external/external-inbox.ts';

/** Which sessions a listing wants: archived ones, unarchived ones, or all when undefined. */
export type SessionFilter = { archived?: boolean };

/** Durable state of users, tokens, sessions and settings. Each write is atomic. */
export interface SessionStore {
  findSession(sessionId: string): Promise<Session | undefined>;
  userExists(userId: string): Promise<boolean>;
  /** A user, or undefined when there is none with that id. */
  findUser(userId: string): Promise<User | undefined>;
  /** Every user, oldest first. */
  listUsers(): Promise<User[]>;
  /** Saves a user together with their personal token. */
  createUser(user: User, token: ApiToken): Promise<void>;
  /**
   * Runs `work` in one transaction holding the relay-wide users lock, so users are added and removed one at a
   * time: two first users cannot both become admin, two names cannot collide, the last admin cannot go.
   */
  lockUsers<T>(work: (tx: UsersTransaction) => Promise<T>): Promise<T>;
  /** Replaces the user's personal tokens with `token` (or with none), atomically. */
  replaceUserTokens(userId: string, token: ApiToken | null): Promise<void>;
  /** Saves a new sign-in link, and deletes the links and console sign-in tokens expired at `now`. */
  saveSignInLink(link: SignInLink, now: Date): Promise<void>;
  /**
   * Deletes the link stored under `linkHash` when it has not expired at `now` and saves the token `mint` makes for
   * its user, atomically; undefined (and nothing saved) for a link unknown, used, expired, or whose user is removed.
   */
  redeemSignInLink(linkHash: string, now: Date, mint: (userId: string) => ApiToken): Promise<ApiToken | undefined>;
  /** Deletes the token stored under `tokenHash` when a sign-in link made it (it has an expiry); whether it did. */
  deleteSignInToken(tokenHash: string): Promise<boolean>;
  /**
   * Replaces every token bound to the session (its MCP client's, its agent worker's, a signed-in client's refresh
   * tokens) with `token` (or none), atomically.
   */
  replaceSessionTokens(sessionId: string, token: ApiToken | null): Promise<void>;
  /**
   * Saves the session, its token (none for a sign-in grant's, whose tokens come when its code is redeemed) and the
   * session_created event (an outbox row) in one transaction.
   */
  createSession(session: Session, token: ApiToken | null, event: SessionCreatedEvent): Promise<void>;
  /** The user's sessions matching the filter, in no particular order. */
  listSessions(userId: string, filter: SessionFilter): Promise<Session[]>;
  findRelaySettings(): Promise<RelaySettings | undefined>;
  /** Stores `defaults` unless settings exist already; returns the settings now stored. */
  seedRelaySettings(defaults: RelaySettings): Promise<RelaySettings>;
  /** Writes the given settings over the stored ones; returns the settings now stored. */
  updateRelaySettings(change: Partial<RelaySettings>): Promise<RelaySettings>;
}

/** What a use case does under the users lock: users, their sessions, and archiving them. */
export interface UsersTransaction extends ConversationStore {
  /** Every user not removed, oldest first. */
  listUsers(): Promise<User[]>;
  createUser(user: User, token: ApiToken): Promise<void>;
  listSessions(userId: string, filter: SessionFilter): Promise<Session[]>;
  /**
   * Marks the user removed (never listed again, their name free), deletes every token and sign-in link of theirs and
   * their sessions' tokens, and publishes relay.session.v1.user_removed in the same transaction.
   */
  markUserRemoved(userId: string, now: Date): Promise<void>;
}

/** A fact to publish through the outbox, in the transaction of the change it reports. */
export type SessionEvent =
  ({ type: 'session_created' } & SessionCreatedEvent) | ({ type: 'turn_queued' } & TurnQueuedEvent) | ({ type: 'archived' } & SessionArchivedEvent);

/**
 * Sessions, groups, messages and turns as the session actions read and write them. A use case runs its
 * checks and its writes in one `transaction`, so a refusal (or a dry run) writes nothing.
 */
export interface ConversationStore {
  /** Runs `work` in one database transaction: everything done through `tx` commits or rolls back together. */
  transaction<T>(work: (tx: ConversationStore) => Promise<T>): Promise<T>;
  /** The session with its row locked until the transaction ends (serialises the active limit, groups, queuing). */
  lockSession(sessionId: string): Promise<Session | undefined>;
  findSession(sessionId: string): Promise<Session | undefined>;
  /** The sessions with their group and the title of the conversation that started them resolved, in the same order. */
  viewSessions(sessions: readonly Session[]): Promise<SessionView[]>;
  /** Sessions this conversation's agent started that have a turn queued, running or waiting for an answer. */
  countSessionsAtWork(startedBySessionId: string): Promise<number>;
  /** Sessions this conversation's agent started, archived ones included, on paired relays too. */
  countStartedSessions(startedBySessionId: string): Promise<number>;
  /** The session's turns that are not over (queued, running, waiting_for_answer), oldest first. */
  openTurns(sessionId: string): Promise<Turn[]>;
  /** Whether one of the session's background tasks still runs. */
  hasRunningTask(sessionId: string): Promise<boolean>;
  /** The user's groups (empty ones included), latest activity first. */
  listGroups(userId: string): Promise<GroupInfo[]>;
  findGroup(groupId: string): Promise<GroupInfo | undefined>;
  /** A group's sessions, head first, then oldest first; at most `limit`. */
  groupMembers(groupId: string, limit: number): Promise<GroupMember[]>;
  hasGrant(grant: Omit<ConversationGrant, 'createdAt'>): Promise<boolean>;
  /** The relays the conversation holds a grant of `kind` on. */
  grantRelays(sessionId: string, kind: ConversationGrant['kind']): Promise<string[]>;

  insertSession(session: Session): Promise<void>;
  updateSession(sessionId: string, changes: SessionChanges): Promise<void>;
  insertGroup(group: Group): Promise<void>;
  deleteGroup(groupId: string): Promise<void>;
  /**
   * Queues a message: inserts it and its queued turn, counts it on the session (message_count + 1,
   * last_activity_at, state running_turn), touches the session's group, and records turn_queued, atomically.
   */
  queueMessage(input: { message: Message; turn: Turn; event: TurnQueuedEvent }): Promise<void>;
  /** Ends the session's queued turns as stopped; returns how many. */
  stopQueuedTurns(sessionId: string, now: Date): Promise<number>;
  /** Asks the runner to stop the session's running (or waiting) turn; false when none runs. */
  requestStop(sessionId: string): Promise<boolean>;
  /** Gives the user's session a new ask mark: an ask may be pending about it; false when the user has no such session. */
  noteAskAbout(userId: string, sessionId: string): Promise<boolean>;
  /**
   * Takes the ask mark off the user's session if it is still `mark`; undefined when the user has no such session,
   * else whether it was taken off.
   */
  clearAskMark(userId: string, sessionId: string, mark: number): Promise<boolean | undefined>;
  insertGrant(grant: ConversationGrant): Promise<void>;
  /** Unlocks paired relays in a conversation; a mention upgrades an agent's unlock, nothing locks one again. */
  unlockRelays(sessionId: string, unlocks: readonly RelayUnlock[], now: Date): Promise<void>;
  /** The paired relays unlocked in a conversation, oldest first. */
  listUnlocks(sessionId: string): Promise<RelayUnlock[]>;
  /** The provenance of a session's first message (who started it); null for a user's. */
  firstPromptProvenance(sessionId: string): Promise<Provenance | null>;
  /** Stores a token record (e.g. a session token the runtime mints for a worker). */
  insertToken(token: ApiToken): Promise<void>;
  /** Publishes a fact through the outbox in the current transaction. */
  recordEvent(event: SessionEvent): Promise<void>;
}

/**
 * A session as list_sessions and read_session show it, with what they show beside it: the latest expiry of its
 * external calls in flight (null without any), whether it has tasks to show (running, or ended since the
 * read's `tasksEndedSince`), so that only then are they read, and how its last turn ended (null: none has).
 */
export interface ListedSession extends SessionView {
  callsHeldUntil: Date | null;
  hasTasks: boolean;
  lastTurn: LastTurn | null;
}

/**
 * What a read answers along for the external session whose agent makes it (`pendingFor`): that session's pending
 * note, read with the read itself (so it fails only with it); undefined when none was asked for or no external
 * session has that id.
 */
export interface PendingAlong {
  pending: PendingNote | undefined;
}

/** A user's sessions as list_sessions reads them, the most recently active first (ties: newest creation, then id). */
export interface SessionListing extends PendingAlong {
  sessions: ListedSession[];
  /** How many sessions the filter holds. */
  total: number;
}

/** Which part of a listing to read: at most `limit` sessions (1 or more) after the first `offset`. */
export interface SessionPage {
  limit: number;
  offset: number;
}

/** A session as read_session reads it: its listing, its last messages (newest last) and its running turn's. */
export interface SessionReading extends PendingAlong {
  session: ListedSession;
  messages: Message[];
  /** The turn running or waiting for an answer, if any: the reply it is writing and the questions it waits on. */
  running: Pick<Turn, 'inFlight' | 'pendingQuestions'> | null;
  /** The session's ask mark (NoteAskAbout): 0 means no ask is pending about it. */
  askMark: number;
}

/** What relay_info reads of a user's sessions. */
export interface RelayInfoReading extends PendingAlong {
  /** Distinct non-empty folders of the user's sessions, most recently active first, at most the limit asked. */
  recentCwds: string[];
  /** The user's groups (empty ones included), latest activity first, as listGroups orders them. */
  groups: Pick<GroupInfo, 'id' | 'name' | 'headTitle' | 'memberCount'>[];
}

/**
 * The reads every list_sessions, read_session and relay_info make (every relay_tool read of an agent), each in one
 * or two statements of plain SQL, where the ConversationStore's reads take one query each, with the pending note
 * every call of an external session's agent carries; and that note alone, for the calls that read nothing else.
 */
export interface SessionReads {
  /**
   * The page of the user's sessions matching the filter (with their total when the page has a limit), and the pending
   * note of `pendingFor` (PendingAlong).
   */
  listSessions(userId: string, filter: SessionFilter, page: SessionPage, tasksEndedSince: Date, pendingFor?: string): Promise<SessionListing>;
  /** A session (any user's) with its `last` messages, and the pending note of `pendingFor`; undefined when there is none. */
  readSession(sessionId: string, last: number, tasksEndedSince: Date, pendingFor?: string): Promise<SessionReading | undefined>;
  /** The user's recent folders (at most `cwdLimit`) and groups, and the pending note of `pendingFor`, in one read. */
  relayInfo(userId: string, cwdLimit: number, pendingFor?: string): Promise<RelayInfoReading>;
  /** What waits unread for an external session's agent (its inbox); undefined when no external session has this id. */
  pending(sessionId: string): Promise<PendingNote | undefined>;
  /** pending of each of these sessions, by id; a session that is not external (or not there) is left out. */
  pendingOf(sessionIds: readonly string[]): Promise<Map<string, PendingNote>>;
}

/**
 * A bearer token as Authenticate reads it, by its hash: with its user, and the session it is bound to, where they
 * are still there. Whether that makes a caller is the use case's to say.
 */
export interface TokenHolder {
  kind: TokenKind;
  /** When it stops working: set only on a console sign-in's token. */
  expiresAt: Date | null;
  /** Its user; undefined once removed. */
  user: Pick<User, 'id' | 'role'> | undefined;
  /** The session it is bound to (a session token's), archived or not; undefined for a user token, or one gone. */
  session: Pick<Session, 'id' | 'archived' | 'origin'> | undefined;
}

/** A token's holder and the relay's settings, read together: Authenticate answers both. */
export interface TokenLookup {
  /** undefined when there is no such token. */
  holder: TokenHolder | undefined;
  settings: RelaySettings;
}

/** What every Authenticate reads (every call of a caller the gateway has not checked lately), in one statement. */
export interface TokenReads {
  /** The token stored under this sha256 hash with its user and session, and the relay's settings, in one read. */
  lookUpToken(tokenHash: string): Promise<TokenLookup>;
}

/** The machine's view of a folder path. */
export interface RealFolders {
  /**
   * The absolute, normalised `folder` with its symbolic links resolved; the part below the deepest folder that
   * exists is kept as written (a session may name a folder it creates later).
   */
  realPath(folder: string): Promise<string>;
}

/** Everything the session actions need. */
export type ActionDeps = {
  store: ConversationStore;
  catalogue: ProviderCatalogue;
  ids: IdGenerator;
  relay: RelayPlace;
  folders: RealFolders;
};

/** New unique ids for users, sessions and events. */
export interface IdGenerator {
  newId(): string;
}

/** Fresh secrets for tokens: at least 256 random bits, base64url. */
export interface SecretSource {
  newSecret(): string;
}

/** The one-way hash tokens are stored and looked up under. */
export interface TokenHasher {
  hash(token: string): string;
}

/** Everything the use cases that mint tokens need. */
export type SessionDeps = {
  store: SessionStore;
  ids: IdGenerator;
  secrets: SecretSource;
  hasher: TokenHasher;
};
