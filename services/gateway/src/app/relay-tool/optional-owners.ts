/**
 * The owners a gateway may run without (ports.ts: subscriptions, remote events): an action that needs one it was not
 * given answers REMOTE_RELAY_UNSUPPORTED.
 */
import type { ActionContext } from './action-context.ts';
import { toolError } from '../../domain/errors.ts';
import type { RemoteEventsClient, SubscriptionClient } from '../ports.ts';

/** The subscription service, when this gateway was given one. */
export function subscriptionOwner(context: ActionContext): SubscriptionClient {
  if (context.subscriptions === undefined) throw toolError('REMOTE_RELAY_UNSUPPORTED', 'Subscriptions are not available on this relay.');
  return context.subscriptions;
}

/** The pairing service's remote events, when this gateway was given them. */
export function remoteEventsOwner(context: ActionContext): RemoteEventsClient {
  if (context.remoteEvents === undefined) throw toolError('REMOTE_RELAY_UNSUPPORTED', 'Subscriptions to paired relays are not available on this relay.');
  return context.remoteEvents;
}
