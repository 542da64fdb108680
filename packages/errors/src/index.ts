/**
 * The one error type of the relay. Every refusal a caller can act on is an AppError with a stable
 * code from a service's catalogue; anything else is a bug and stays a plain Error.
 */

import { ERROR_KINDS, isErrorCode, type ErrorCode } from './catalogue.ts';

export { ERROR_KINDS, isErrorCode, type ErrorCode } from './catalogue.ts';
export { MAX_SESSIONS_AT_WORK } from './limits.ts';

/** gRPC's vocabulary for what went wrong, independent of any transport. */
export type ErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'failed_precondition'
  | 'permission_denied'
  | 'unauthenticated'
  | 'resource_exhausted'
  | 'unavailable'
  | 'deadline_exceeded'
  | 'aborted'
  | 'unimplemented'
  | 'internal';

/** Extra, JSON-safe fields a refusal carries to the caller (e.g. `suggestions`, `groups`). */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly code: string;
  readonly kind: ErrorKind;
  readonly details: ErrorDetails;

  constructor(code: string, kind: ErrorKind, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.kind = kind;
    this.details = options.details ?? {};
  }
}

/** A refusal with a catalogued code; its kind is the one the catalogue gives that code. */
export function appError(code: ErrorCode, message: string, options: { cause?: unknown; details?: ErrorDetails } = {}): AppError {
  return new AppError(code, ERROR_KINDS[code], message, options);
}

/**
 * The refusal behind an error a library threw in its place, or `error` as it is. Prisma's client, when its driver
 * adapter's pool throws an AppError (@relay/db's lines refusing a query they could not run in time), throws an error
 * of its own that keeps the AppError's code, with the AppError's message as the last line of its own: that is the
 * refusal again, with its catalogued code and kind. Nothing else carries a catalogued code.
 */
export function refusalBehind(error: unknown): unknown {
  if (isAppError(error) || !(error instanceof Error)) return error;
  const { code } = error as { code?: unknown };
  if (typeof code !== 'string' || !isErrorCode(code)) return error;
  return appError(code, error.message.trim().split('\n').at(-1)!, { cause: error });
}

/** True for errors a caller may act on; false for bugs. */
export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Kinds whose cause may pass: a bus handler naks these and terminates the rest. */
export function isTransient(error: unknown): boolean {
  return isAppError(error) && (error.kind === 'unavailable' || error.kind === 'deadline_exceeded' || error.kind === 'aborted');
}

/** The code every unexpected fault is shown as; its message never carries internals. */
export const INTERNAL_CODE = 'REMOTE_RELAY_INTERNAL' satisfies ErrorCode;
