/**
 * The session service's error catalogue: every refusal it returns, with its stable code (decisions.md, Errors).
 * Messages are the sentences the agent reads; `details` carries the extra result fields the gateway copies.
 */
import { appError, type AppError, type ErrorCode, type ErrorDetails } from '@relay/errors';

export const SessionErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'REMOTE_RELAY_FORBIDDEN',
  ARCHIVED: 'REMOTE_RELAY_ARCHIVED',
  BUSY: 'REMOTE_RELAY_BUSY',
  ACTIVE_LIMIT: 'REMOTE_RELAY_ACTIVE_LIMIT',
  NESTING: 'REMOTE_RELAY_NESTING',
  PERMISSION: 'REMOTE_RELAY_PERMISSION',
  UNKNOWN_MODEL: 'REMOTE_RELAY_UNKNOWN_MODEL',
  UNKNOWN_GROUP: 'REMOTE_RELAY_UNKNOWN_GROUP',
  PROVIDER_UNAVAILABLE: 'REMOTE_RELAY_PROVIDER_UNAVAILABLE',
  UNSUPPORTED: 'REMOTE_RELAY_UNSUPPORTED',
  COPILOT_MODEL_UNAVAILABLE: 'COPILOT_MODEL_UNAVAILABLE',
  /** A user name another user has already, case aside. */
  USER_EXISTS: 'REMOTE_RELAY_USER_EXISTS',
  /** Removing the relay's only admin would leave nobody to manage it. */
  LAST_ADMIN: 'REMOTE_RELAY_LAST_ADMIN',
  /** A budget over the delegation tree holds it (reached or ended), or it started all the sessions it may. */
  BUDGET_REACHED: 'REMOTE_RELAY_BUDGET_REACHED',
} as const;

/** The tree's budget set on `budgetSessionId` holds what was asked; `nothingDone` says what was not done. */
export function budgetReached(why: string, budgetSessionId: string, nothingDone: string): AppError {
  return appError(SessionErrorCode.BUDGET_REACHED, `${why} ${nothingDone} Ask the user to raise the budget (its card in their Inbox, or relay budget).`, {
    details: { budgetSession: budgetSessionId },
  });
}

/** A wrong or missing argument; `details.field` names it. */
export function invalidInput(message: string, details: ErrorDetails): AppError {
  return appError(SessionErrorCode.INVALID_INPUT, message, { details });
}

/** No such user or session (or not visible to the caller). */
export function notFound(message: string, details: ErrorDetails): AppError {
  return appError(SessionErrorCode.NOT_FOUND, message, { details });
}

/** No session `sessionId` of the user's on this relay (another user's reads the same); `nothingDone` says what was not done. */
export function noSuchSession(relayName: string, sessionId: string, nothingDone = ''): AppError {
  return notFound(`No session '${sessionId}' on relay "${relayName}".${nothingDone === '' ? '' : ` ${nothingDone}`}`, { field: 'session' });
}

/** A token that is unknown, malformed, or whose session is archived. Never says which, never echoes it. */
export function unauthenticated(): AppError {
  return appError(SessionErrorCode.UNAUTHENTICATED, 'unknown or revoked token');
}

/** A new user named like an existing one (case aside); `details.user` is the existing user's id. */
export function userExists(name: string, existing: { id: string; name: string }): AppError {
  return appError(SessionErrorCode.USER_EXISTS, `A user named "${existing.name}" exists already; choose another name than "${name}".`, {
    details: { field: 'name', user: existing.id },
  });
}

/** The relay's only admin cannot be removed. */
export function lastAdmin(name: string): AppError {
  return appError(
    SessionErrorCode.LAST_ADMIN,
    `${name} is this relay's only admin, and a relay needs one to manage its users and pairings; add another admin first (relay users add NAME --admin). Nothing was removed.`,
  );
}

/** Never allowed, e.g. acting on the caller's own conversation. */
export function forbidden(message: string): AppError {
  return appError(SessionErrorCode.FORBIDDEN, message);
}

/** The session is archived. */
export function archived(message: string): AppError {
  return appError(SessionErrorCode.ARCHIVED, message);
}

/** A new folder for a session that is at work. */
export function busy(message: string): AppError {
  return appError(SessionErrorCode.BUSY, message);
}

/** The calling conversation already has its maximum of started sessions at work. */
export function activeLimit(message: string, details: ErrorDetails): AppError {
  return appError(SessionErrorCode.ACTIVE_LIMIT, message, { details });
}

/** An agent-created session tries to start sessions without the owner's switch. */
export function nesting(message: string): AppError {
  return appError(SessionErrorCode.NESTING, message);
}

/** The user has not allowed this (or chose Deny). */
export function permission(message: string): AppError {
  return appError(SessionErrorCode.PERMISSION, message);
}

/** A model refused by the provider's list; details carry `suggestions` and `models`. */
export function modelRefused(code: ErrorCode, message: string, details: ErrorDetails): AppError {
  return appError(code, message, { details });
}

/** A group id or name not found, or a name that fits several groups; details carry `groups` and `groupsTotal`. */
export function unknownGroup(message: string, details: ErrorDetails): AppError {
  return appError(SessionErrorCode.UNKNOWN_GROUP, message, { details });
}

/** A provider not set up or not usable here; details carry `remoteCode` when the provider has its own. */
export function providerUnavailable(message: string, details: ErrorDetails): AppError {
  return appError(SessionErrorCode.PROVIDER_UNAVAILABLE, message, { details });
}

/** Something this relay does not do (an OpenAI Image chat through create_session, an external session's turn). */
export function unsupported(message: string): AppError {
  return appError(SessionErrorCode.UNSUPPORTED, message);
}
