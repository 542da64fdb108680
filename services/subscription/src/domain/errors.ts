/**
 * The subscription service's error codes: the one catalogue of its refusals.
 */
import { appError, AppError } from '@relay/errors';

export const SubscriptionErrorCode = {
  /** A bus message that can never be applied (missing fields, unknown state): terminated, not retried. */
  INVALID_EVENT: 'SUBSCRIPTION_INVALID_EVENT',
} as const;

/** A session event this service cannot read; `reason` says which field is wrong. */
export function invalidEvent(subject: string, reason: string): AppError {
  return appError(SubscriptionErrorCode.INVALID_EVENT, `${subject}: ${reason}`, {
    details: { subject, reason },
  });
}

/** A refusal of subscribe, unsubscribe, list_subscriptions or transfer_subscriptions, with the spec's code. */
export function subscriptionRefusal(
  code: 'REMOTE_RELAY_INVALID_INPUT' | 'REMOTE_RELAY_NOT_FOUND' | 'REMOTE_RELAY_SUBSCRIPTION_LIMIT' | 'REMOTE_RELAY_FORBIDDEN',
  message: string,
  details?: Record<string, unknown>,
): AppError {
  return appError(code, message, details === undefined ? {} : { details });
}
