/**
 * The pairing service's error catalogue: every refusal it returns, with the spec's codes (decisions.md, Errors).
 * Messages are the sentences the agent or user reads; they never carry a token or a code.
 */
import { AppError } from '@relay/errors';

export const PairingErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  UNKNOWN_RELAY: 'REMOTE_RELAY_UNKNOWN_RELAY',
  OFFLINE: 'REMOTE_RELAY_OFFLINE',
  AUTH: 'REMOTE_RELAY_AUTH',
} as const;

/** A wrong or missing argument. */
export function invalidInput(message: string): AppError {
  return new AppError(PairingErrorCode.INVALID_INPUT, 'invalid_argument', message);
}

/** No paired relay by that name. */
export function unknownRelay(name: string): AppError {
  return new AppError(PairingErrorCode.UNKNOWN_RELAY, 'not_found', `No relay named "${name}" is paired with this one.`);
}

/** A paired relay (or one being paired) did not answer. */
export function offline(message: string, cause?: unknown): AppError {
  return new AppError(PairingErrorCode.OFFLINE, 'unavailable', message, { cause });
}

/** A token or pairing code refused, here or by the other relay. Never says which part was wrong. */
export function auth(message: string): AppError {
  return new AppError(PairingErrorCode.AUTH, 'unauthenticated', message);
}
