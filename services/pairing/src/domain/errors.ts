/**
 * The pairing service's error catalogue: every refusal it returns, with the spec's codes (decisions.md, Errors).
 * Messages are the sentences the agent or user reads; they never carry a token or a code.
 */
import { appError, AppError } from '@relay/errors';

export const PairingErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  UNKNOWN_RELAY: 'REMOTE_RELAY_UNKNOWN_RELAY',
  OFFLINE: 'REMOTE_RELAY_OFFLINE',
  AUTH: 'REMOTE_RELAY_AUTH',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  /** A name (case aside) or URL that is paired already: a pairing never replaces another. */
  PAIRING_EXISTS: 'REMOTE_RELAY_PAIRING_EXISTS',
  /** A bus message that can never be applied (missing fields): terminated, not retried. */
  INVALID_EVENT: 'PAIRING_INVALID_EVENT',
} as const;

/** A wrong or missing argument. */
export function invalidInput(message: string): AppError {
  return appError(PairingErrorCode.INVALID_INPUT, message);
}

/** No paired relay by that name. */
export function unknownRelay(name: string): AppError {
  return appError(PairingErrorCode.UNKNOWN_RELAY, `No relay named "${name}" is paired with this one.`);
}

/** A paired relay (or one being paired) did not answer. */
export function offline(message: string, cause?: unknown): AppError {
  return appError(PairingErrorCode.OFFLINE, message, { cause });
}

/** A token or pairing code refused, here or by the other relay. Never says which part was wrong. */
export function auth(message: string): AppError {
  return appError(PairingErrorCode.AUTH, message);
}

/** No such subscription (or other thing the call names). */
export function notFound(message: string): AppError {
  return appError(PairingErrorCode.NOT_FOUND, message);
}

/**
 * A new pairing whose relay name (compared case-insensitively) or URL is paired already: refused rather than
 * replacing that pairing's URL, tokens and level, until it is unpaired. `message` names the existing pairing.
 */
export function pairingExists(existing: { name: string; url: string }, message: string): AppError {
  return appError(PairingErrorCode.PAIRING_EXISTS, message, { details: { relay: existing.name, url: existing.url } });
}

/** A bus message this service cannot read; `reason` says which field is wrong. */
export function invalidEvent(subject: string, reason: string): AppError {
  return appError(PairingErrorCode.INVALID_EVENT, `${subject}: ${reason}`);
}
