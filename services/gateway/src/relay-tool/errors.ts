/**
 * The gateway's error catalogue: every code a relay_tool result may carry (decisions.md, Errors),
 * each with its kind. Refusals are AppErrors with one of these codes; anything else is a bug.
 */
import { AppError, INTERNAL_CODE, type ErrorDetails, type ErrorKind } from '@relay/errors';

const CATALOGUE = {
  REMOTE_RELAY_INVALID_INPUT: 'invalid_argument',
  REMOTE_RELAY_DISABLED: 'failed_precondition',
  REMOTE_RELAY_UNKNOWN_RELAY: 'not_found',
  REMOTE_RELAY_LOCKED: 'failed_precondition',
  REMOTE_RELAY_OFFLINE: 'unavailable',
  REMOTE_RELAY_AUTH: 'unauthenticated',
  REMOTE_RELAY_PERMISSION: 'permission_denied',
  REMOTE_RELAY_NO_ACTIVE_TURN: 'failed_precondition',
  REMOTE_RELAY_FORBIDDEN: 'permission_denied',
  REMOTE_RELAY_NOT_FOUND: 'not_found',
  REMOTE_RELAY_ARCHIVED: 'failed_precondition',
  REMOTE_RELAY_BUSY: 'failed_precondition',
  REMOTE_RELAY_ACTIVE_LIMIT: 'resource_exhausted',
  REMOTE_RELAY_NESTING: 'permission_denied',
  REMOTE_RELAY_SUBSCRIPTION_LIMIT: 'resource_exhausted',
  REMOTE_RELAY_SCHEDULE_LIMIT: 'resource_exhausted',
  REMOTE_RELAY_QUESTION_LIMIT: 'resource_exhausted',
  REMOTE_RELAY_HOP_LIMIT: 'permission_denied',
  REMOTE_RELAY_LOOP_GUARD: 'permission_denied',
  REMOTE_RELAY_UNKNOWN_MODEL: 'invalid_argument',
  REMOTE_RELAY_UNKNOWN_GROUP: 'invalid_argument',
  REMOTE_RELAY_PROVIDER_UNAVAILABLE: 'failed_precondition',
  REMOTE_RELAY_UNSUPPORTED: 'unimplemented',
  // The user API's own refusals (not relay_tool results): a pairing, a user name already taken; the last admin.
  REMOTE_RELAY_PAIRING_EXISTS: 'already_exists',
  REMOTE_RELAY_USER_EXISTS: 'already_exists',
  REMOTE_RELAY_LAST_ADMIN: 'failed_precondition',
  [INTERNAL_CODE]: 'internal',
  COPILOT_MODEL_UNAVAILABLE: 'invalid_argument',
  CLAUDE_PROVIDER_REQUIRED: 'invalid_argument',
} as const satisfies Record<string, ErrorKind>;

export type ToolErrorCode = keyof typeof CATALOGUE;

/** The codes a relay_tool result may carry (the user API's own refusals aside): docs/relay-tool.md lists each. */
export const RELAY_TOOL_CODES = (Object.keys(CATALOGUE) as ToolErrorCode[]).filter(
  (code) => !['REMOTE_RELAY_PAIRING_EXISTS', 'REMOTE_RELAY_USER_EXISTS', 'REMOTE_RELAY_LAST_ADMIN'].includes(code),
);

/** A refusal with a catalogued code; its message is the sentence the agent reads. */
export function toolError(code: ToolErrorCode, message: string, details?: ErrorDetails): AppError {
  return new AppError(code, CATALOGUE[code], message, { details });
}

/** True when `code` is one of the catalogued codes, so a refusal carrying it may reach the agent as is. */
export function isToolErrorCode(code: string): code is ToolErrorCode {
  return Object.hasOwn(CATALOGUE, code);
}
