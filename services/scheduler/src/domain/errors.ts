/**
 * The scheduler's error codes: the one catalogue of its refusals (decisions.md, Errors). Messages are the
 * sentences the agent reads.
 */
import { AppError, type ErrorDetails } from '@relay/errors';

export const SchedulerErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  SCHEDULE_LIMIT: 'REMOTE_RELAY_SCHEDULE_LIMIT',
} as const;

/** A wrong or missing argument; `details.field` names it. */
export function invalidInput(message: string, details: ErrorDetails): AppError {
  return new AppError(SchedulerErrorCode.INVALID_INPUT, 'invalid_argument', message, { details });
}

/** No such active schedule of the conversation or user. */
export function scheduleNotFound(scheduleId: string): AppError {
  return new AppError(SchedulerErrorCode.NOT_FOUND, 'not_found', `No active schedule ${scheduleId} fires into or was set by this conversation.`, {
    details: { scheduleId },
  });
}

/** One of the two limits of 20 (decisions.md, Limits). */
export function scheduleLimit(message: string): AppError {
  return new AppError(SchedulerErrorCode.SCHEDULE_LIMIT, 'resource_exhausted', message);
}
