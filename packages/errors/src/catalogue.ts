/**
 * Every error code of the relay, each with its one kind (decisions.md, Errors): the spec's REMOTE_RELAY_* codes
 * that reach agents and users, and the codes services keep among themselves. A code means the same thing, and
 * maps to the same gRPC status and HTTP status, wherever it is raised.
 */
import type { ErrorKind } from './index.ts';

export const ERROR_KINDS = {
  // The spec's codes (relay_tool results, the user API).
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
  // This relay's extension: a budget over the caller's delegation tree holds it (docs/adr/0039-tree-budgets.md).
  REMOTE_RELAY_BUDGET_REACHED: 'resource_exhausted',
  // This relay's extension: the caller's user has as many calls at work and waiting as the gateway allows one user.
  REMOTE_RELAY_CALL_LIMIT: 'resource_exhausted',
  // The agent named a model or group the relay does not offer: a wrong argument, answered with the ones it has.
  REMOTE_RELAY_UNKNOWN_MODEL: 'invalid_argument',
  REMOTE_RELAY_UNKNOWN_GROUP: 'invalid_argument',
  REMOTE_RELAY_PROVIDER_UNAVAILABLE: 'failed_precondition',
  // Something this relay (or the paired relay's version) does not do at all.
  REMOTE_RELAY_UNSUPPORTED: 'unimplemented',
  REMOTE_RELAY_PAIRING_EXISTS: 'already_exists',
  REMOTE_RELAY_USER_EXISTS: 'already_exists',
  REMOTE_RELAY_LAST_ADMIN: 'failed_precondition',
  REMOTE_RELAY_INTERNAL: 'internal',
  COPILOT_MODEL_UNAVAILABLE: 'invalid_argument',
  // A Copilot or Codex session asked for another provider's model id: start it with that provider instead.
  CLAUDE_PROVIDER_REQUIRED: 'invalid_argument',
  OPENAI_PROVIDER_REQUIRED: 'invalid_argument',
  OPENAI_IMAGE_PROVIDER_REQUIRED: 'invalid_argument',
  DEEPSEEK_PROVIDER_REQUIRED: 'invalid_argument',
  SCRIPT_PROVIDER_REQUIRED: 'invalid_argument',
  ACP_PROVIDER_REQUIRED: 'invalid_argument',
  COPILOT_PROVIDER_REQUIRED: 'invalid_argument',
  CODEX_PROVIDER_REQUIRED: 'invalid_argument',
  // Between services.
  UNAUTHENTICATED: 'unauthenticated',
  SERVICE_UNAVAILABLE: 'unavailable',
  SUBSCRIPTION_INVALID_EVENT: 'invalid_argument',
  PAIRING_INVALID_EVENT: 'invalid_argument',
  // A service's database at start.
  MIGRATION_FAILED: 'failed_precondition',
  MIGRATION_CHANGED: 'failed_precondition',
  PRISMA_SCHEMA_INVALID: 'invalid_argument',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_KINDS;

/** True when `code` is in the catalogue. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_KINDS, code);
}
