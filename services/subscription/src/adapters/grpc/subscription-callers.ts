import type { SubscriptionServiceService } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { Callers } from '@relay/rpc';

const GATEWAY = ['gateway'] as const;

/**
 * Who may call each SubscriptionService RPC: the gateway for the watching actions; a paired relay's events,
 * link states and unpairing come in from the pairing service (and the gateway), and only the pairing service
 * computes paired relays' watches.
 */
export const SUBSCRIPTION_CALLERS = {
  subscribe: GATEWAY,
  unsubscribe: GATEWAY,
  listSubscriptions: GATEWAY,
  listUserSubscriptions: GATEWAY,
  transferSubscriptions: GATEWAY,
  notePromptState: GATEWAY,
  ingestRemoteEvents: ['gateway', 'pairing'],
  reportLinkState: ['gateway', 'pairing'],
  endRelaySubscriptions: ['gateway', 'pairing'],
  computeWatchEvents: ['pairing'],
} satisfies Callers<typeof SubscriptionServiceService>;
