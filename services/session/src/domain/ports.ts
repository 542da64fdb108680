/**
 * What the use cases need from the outside world. Adapters in store/ and crypto/ implement these;
 * unit tests use in-memory fakes.
 */
import type { ApiToken, RelaySettings, Session, SessionCreatedEvent, User } from './entities.ts';

/** Which sessions a listing wants: archived ones, unarchived ones, or all when undefined. */
export type SessionFilter = { archived?: boolean };

/** Durable state of users, tokens, sessions and settings. Each write is atomic. */
export interface SessionStore {
  /** The token stored under this sha256 hash, if any. */
  findToken(tokenHash: string): Promise<ApiToken | undefined>;
  findSession(sessionId: string): Promise<Session | undefined>;
  userExists(userId: string): Promise<boolean>;
  /** Saves a user together with their personal token. */
  createUser(user: User, token: ApiToken): Promise<void>;
  /** Saves the session, its token and the session_created event (an outbox row) in one transaction. */
  createSession(session: Session, token: ApiToken, event: SessionCreatedEvent): Promise<void>;
  /** The user's sessions matching the filter, in no particular order. */
  listSessions(userId: string, filter: SessionFilter): Promise<Session[]>;
  findRelaySettings(): Promise<RelaySettings | undefined>;
  /** Stores `defaults` unless settings exist already; returns the settings now stored. */
  seedRelaySettings(defaults: RelaySettings): Promise<RelaySettings>;
}

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
