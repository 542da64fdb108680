/**
 * The scheduler's error codes: the one catalogue of its refusals (decisions.md, Errors). Messages are the
 * sentences the agent reads.
 */
import { appError, AppError, type ErrorDetails } from '@relay/errors';

export const SchedulerErrorCode = {
  INVALID_INPUT: 'REMOTE_RELAY_INVALID_INPUT',
  NOT_FOUND: 'REMOTE_RELAY_NOT_FOUND',
  SCHEDULE_LIMIT: 'REMOTE_RELAY_SCHEDULE_LIMIT',
} as const;

/** A wrong or missing argument; `details.field` names it. */
export function invalidInput(message: string, details: ErrorDetails): AppError {
  return appError(SchedulerErrorCode.INVALID_INPUT, message, { details });
}

/** No such active schedule of the conversation or user. */
export function scheduleNotFound(scheduleId: string): AppError {
  return appError(SchedulerErrorCode.NOT_FOUND, `No active schedule ${scheduleId} fires into or was set by this conversation.`, {
    details: { scheduleId },
  });
}

/** One of the two limits of 20 (decisions.md, Limits). */
export function scheduleLimit(message: string): AppError {
  return appError(SchedulerErrorCode.SCHEDULE_LIMIT, message);
}
