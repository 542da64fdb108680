import type { Session, SessionCreatedEvent, SessionView } from '../src/domain/sessions/session.ts';
import type { RelaySettings } from '../src/domain/settings/relay-settings.ts';
import type { ApiToken, SignInLink, User } from '../src/domain/users/user.ts';
import type { SessionFilter, SessionStore, TokenHolder, TokenLookup, TokenReads, UsersTransaction } from '../src/app/ports.ts';

/** A SessionStore in memory (and Authenticate's TokenReads over it), for unit tests of the use cases. */
export class InMemorySessionStore implements SessionStore, TokenReads {
  readonly users = new Map<string, User>();
  readonly tokens = new Map<string, ApiToken>();
  readonly signInLinks = new Map<string, SignInLink>();
  readonly sessions = new Map<string, Session>();
  readonly events: SessionCreatedEvent[] = [];
  settings: RelaySettings | undefined;

  /** A removed user is not in `users`, a session gone not in `sessions`. */
  async lookUpToken(tokenHash: string): Promise<TokenLookup> {
    if (this.settings === undefined) throw new Error('relay settings are missing: seedRelaySettings must run at boot');
    return { holder: this.#holderOf(tokenHash), settings: this.settings };
  }
  #holderOf(tokenHash: string): TokenHolder | undefined {
    const token = this.tokens.get(tokenHash);
    if (token === undefined) return undefined;
    const user = this.users.get(token.userId);
    const session = token.sessionId === null ? undefined : this.sessions.get(token.sessionId);
    return {
      kind: token.kind,
      expiresAt: token.expiresAt,
      user: user && { id: user.id, role: user.role },
      session: session && { id: session.id, archived: session.archived, origin: session.origin },
    };
  }
  async findSession(sessionId: string): Promise<Session | undefined> {
    return this.sessions.get(sessionId);
  }
  async userExists(userId: string): Promise<boolean> {
    return this.users.has(userId);
  }
  async findUser(userId: string): Promise<User | undefined> {
    return this.users.get(userId);
  }
  async listUsers(): Promise<User[]> {
    return [...this.users.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }
  async createUser(user: User, token: ApiToken): Promise<void> {
    this.users.set(user.id, user);
    this.tokens.set(token.tokenHash, token);
  }
  /** Runs `work` at once (one test, one caller); only the users and sessions methods exist on its store. */
  async lockUsers<T>(work: (tx: UsersTransaction) => Promise<T>): Promise<T> {
    return work(this as unknown as UsersTransaction);
  }
  async replaceUserTokens(userId: string, token: ApiToken | null): Promise<void> {
    this.#dropTokens((stored) => stored.kind === 'user' && stored.userId === userId);
    if (token !== null) this.tokens.set(token.tokenHash, token);
  }
  async saveSignInLink(link: SignInLink, now: Date): Promise<void> {
    for (const [hash, stored] of this.signInLinks) if (stored.expiresAt <= now) this.signInLinks.delete(hash);
    this.#dropTokens((stored) => stored.expiresAt !== null && stored.expiresAt <= now);
    this.signInLinks.set(link.linkHash, link);
  }
  async redeemSignInLink(linkHash: string, now: Date, mint: (userId: string) => ApiToken): Promise<ApiToken | undefined> {
    const link = this.signInLinks.get(linkHash);
    this.signInLinks.delete(linkHash);
    if (link === undefined || link.expiresAt <= now || !this.users.has(link.userId)) return undefined;
    const token = mint(link.userId);
    this.tokens.set(token.tokenHash, token);
    return token;
  }
  async deleteSignInToken(tokenHash: string): Promise<boolean> {
    const token = this.tokens.get(tokenHash);
    if (token === undefined || token.expiresAt === null) return false;
    return this.tokens.delete(tokenHash);
  }
  async replaceSessionTokens(sessionId: string, token: ApiToken | null): Promise<void> {
    this.#dropTokens((stored) => stored.sessionId === sessionId);
    if (token !== null) this.tokens.set(token.tokenHash, token);
  }
  #dropTokens(which: (token: ApiToken) => boolean): void {
    for (const [hash, stored] of this.tokens) if (which(stored)) this.tokens.delete(hash);
  }
  async createSession(session: Session, token: ApiToken, event: SessionCreatedEvent): Promise<void> {
    this.sessions.set(session.id, session);
    this.tokens.set(token.tokenHash, token);
    this.events.push(event);
  }
  async listSessions(userId: string, filter: SessionFilter): Promise<Session[]> {
    // Insertion order, not activity order: the use case must sort.
    return [...this.sessions.values()].filter(
      (session) => session.userId === userId && (filter.archived === undefined || session.archived === filter.archived),
    );
  }
  /** Groups and starters are not modelled here: every session shows none. */
  async viewSessions(sessions: readonly Session[]): Promise<SessionView[]> {
    return sessions.map((session) => ({ ...session, group: null, startedByTitle: '' }));
  }
  async findRelaySettings(): Promise<RelaySettings | undefined> {
    return this.settings;
  }
  async seedRelaySettings(defaults: RelaySettings): Promise<RelaySettings> {
    this.settings ??= defaults;
    return this.settings;
  }
  async updateRelaySettings(change: Partial<RelaySettings>): Promise<RelaySettings> {
    if (this.settings === undefined) throw new Error('no relay settings to update');
    this.settings = { ...this.settings, ...change };
    return this.settings;
  }
}
