/** A person who owns sessions, their tokens and sign-in links, and the party behind a call. */

/** Admins change what is relay-wide (relay settings, pairings) and add users; members use their own sessions. */
export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A person who owns sessions. */
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
