/**
 * How far a message sent to a session has come, in the words of the user API, read_session and the results of send,
 * create_session and wait: queued, delivered or failed (the session service reads it off the message's turn).
 */
import { MessageDelivery, TurnStatus } from '@relay/proto/relay/session/v1/session';

export type DeliveryName = 'queued' | 'delivered' | 'failed';

const NAMES: Partial<Record<number, DeliveryName>> = {
  [MessageDelivery.MESSAGE_DELIVERY_QUEUED]: 'queued',
  [MessageDelivery.MESSAGE_DELIVERY_DELIVERED]: 'delivered',
  [MessageDelivery.MESSAGE_DELIVERY_FAILED]: 'failed',
};

/** A message's delivery; undefined for one that has none (a reply, an error row). */
export function deliveryName(delivery: MessageDelivery): DeliveryName | undefined {
  return NAMES[delivery];
}

/**
 * A turn's message's delivery: as the session service says, or, from one that predates it, as far as the status
 * tells (a stopped turn counts as delivered, not knowing whether it had started).
 */
export function turnDeliveryName(delivery: MessageDelivery, status: TurnStatus): DeliveryName {
  const named = deliveryName(delivery);
  if (named !== undefined) return named;
  if (status === TurnStatus.TURN_STATUS_QUEUED) return 'queued';
  return status === TurnStatus.TURN_STATUS_ERROR ? 'failed' : 'delivered';
}
