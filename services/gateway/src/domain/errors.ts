/**
 * The codes a relay_tool result may carry (decisions.md, Errors), out of the relay's one catalogue in
 * @relay/errors, which gives each its kind. Refusals are AppErrors with one of these codes; anything else is a bug.
 */
import { appError, INTERNAL_CODE, type AppError, type ErrorCode, type ErrorDetails } from '@relay/errors';

/** The codes a relay_tool result may carry, and the user API's own refusals; their kinds are @relay/errors'. */
const TOOL_CODES = [
  'REMOTE_RELAY_INVALID_INPUT',
  'REMOTE_RELAY_DISABLED',
  'REMOTE_RELAY_UNKNOWN_RELAY',
  'REMOTE_RELAY_LOCKED',
  'REMOTE_RELAY_OFFLINE',
  'REMOTE_RELAY_AUTH',
  'REMOTE_RELAY_PERMISSION',
  'REMOTE_RELAY_NO_ACTIVE_TURN',
  'REMOTE_RELAY_FORBIDDEN',
  'REMOTE_RELAY_NOT_FOUND',
  'REMOTE_RELAY_ARCHIVED',
  'REMOTE_RELAY_BUSY',
  'REMOTE_RELAY_ACTIVE_LIMIT',
  'REMOTE_RELAY_NESTING',
  'REMOTE_RELAY_SUBSCRIPTION_LIMIT',
  'REMOTE_RELAY_SCHEDULE_LIMIT',
  'REMOTE_RELAY_QUESTION_LIMIT',
  'REMOTE_RELAY_HOP_LIMIT',
  'REMOTE_RELAY_LOOP_GUARD',
  // This relay's extension: a budget over the caller's delegation tree holds the call.
  'REMOTE_RELAY_BUDGET_REACHED',
  // This relay's extension: the caller's user has as many calls at work and waiting as the gateway allows (fair-calls.ts).
  'REMOTE_RELAY_CALL_LIMIT',
  'REMOTE_RELAY_UNKNOWN_MODEL',
  'REMOTE_RELAY_UNKNOWN_GROUP',
  'REMOTE_RELAY_PROVIDER_UNAVAILABLE',
  'REMOTE_RELAY_UNSUPPORTED',
  // The user API's own refusals (not relay_tool results): a pairing, a user name already taken; the last admin.
  'REMOTE_RELAY_PAIRING_EXISTS',
  'REMOTE_RELAY_USER_EXISTS',
  'REMOTE_RELAY_LAST_ADMIN',
  INTERNAL_CODE,
  'COPILOT_MODEL_UNAVAILABLE',
  'CLAUDE_PROVIDER_REQUIRED',
  'COPILOT_PROVIDER_REQUIRED',
  'CODEX_PROVIDER_REQUIRED',
] as const satisfies readonly ErrorCode[];

export type ToolErrorCode = (typeof TOOL_CODES)[number];

/** The codes a relay_tool result may carry (the user API's own refusals aside): docs/relay-tool.md lists each. */
export const RELAY_TOOL_CODES = TOOL_CODES.filter(
  (code) => !['REMOTE_RELAY_PAIRING_EXISTS', 'REMOTE_RELAY_USER_EXISTS', 'REMOTE_RELAY_LAST_ADMIN'].includes(code),
);

/** A refusal with a catalogued code; its message is the sentence the agent reads. */
export function toolError(code: ToolErrorCode, message: string, details?: ErrorDetails): AppError {
  return appError(code, message, { details });
}

/** True when `code` is one of the catalogued codes, so a refusal carrying it may reach the agent as is. */
export function isToolErrorCode(code: string): code is ToolErrorCode {
  return (TOOL_CODES as readonly string[]).includes(code);
}
