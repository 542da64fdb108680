/**
 * Who calls the gateway: a user, or the agent of one of their sessions, as the session service's Authenticate (or
 * RedeemSignInLink) answers for a bearer token.
 */
import type { AuthenticateResponse } from '@relay/proto/relay/session/v1/session_service';

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

// A role this gateway does not know, or none (a session service that predates roles), reads as member:
// the safe side, since only admins change what is relay-wide.
export function userRoleOf(role: string | undefined): UserRole {
  return role === 'admin' ? 'admin' : 'member';
}

/** The caller Authenticate answered; a plain Error when it answered none. */
export function callerOf(answer: AuthenticateResponse): AuthenticatedCaller {
  const { caller } = answer;
  if (!caller?.userId) throw new Error('Authenticate answered without a caller');
  const role = userRoleOf(answer.role);
  if (!caller.sessionId) return { userId: caller.userId, role };
  return { userId: caller.userId, role, sessionId: caller.sessionId, ...(answer.external ? { external: true } : {}) };
}
