/**
 * The subscription service's error codes: the one catalogue of its refusals.
 */
import { AppError } from '@relay/errors';

export const SubscriptionErrorCode = {
  /** A bus message that can never be applied (missing fields, unknown state): terminated, not retried. */
  INVALID_EVENT: 'SUBSCRIPTION_INVALID_EVENT',
} as const;

/** A session event this service cannot read; `reason` says which field is wrong. */
export function invalidEvent(subject: string, reason: string): AppError {
  return new AppError(SubscriptionErrorCode.INVALID_EVENT, 'invalid_argument', `${subject}: ${reason}`, {
    details: { subject, reason },
  });
}
