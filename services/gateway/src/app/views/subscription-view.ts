/**
 * A subscription as the agent and the user API see it: subscribe's answer, and a list's row (list_subscriptions, the
 * watcher's list in the user API).
 */
import type { Subscription } from '@relay/proto/relay/subscription/v1/subscription_service';

/** A subscription as subscribe and list_subscriptions show it: the options only when it has them. */
export function subscriptionView(subscription: Subscription) {
  return {
    id: subscription.id,
    ...(subscription.relay ? { relay: subscription.relay } : {}),
    ...(subscription.scope === 'all' ? { scope: 'all' as const, sessions: 'all' as const } : { sessions: subscription.sessions }),
    events: subscription.events,
    once: subscription.once,
    ...(subscription.match ? { match: subscription.match } : {}),
    stalledMinutes: subscription.stalledMinutes,
    ...(subscription.heartbeatMinutes > 0 ? { heartbeatMinutes: subscription.heartbeatMinutes } : {}),
    ...(subscription.digestMinutes > 0 ? { digestMinutes: subscription.digestMinutes } : {}),
    ...(subscription.quietHours !== undefined ? { quietHours: subscription.quietHours } : {}),
    ...(subscription.exclude.length > 0 ? { exclude: subscription.exclude } : {}),
  };
}

/**
 * A subscription as a list shows it (list_subscriptions, the watcher's list in the user API): what its digest or
 * quiet hours hold, and for an ended one when and why (its held count only while something is still held).
 */
export function listedSubscriptionView(subscription: Subscription) {
  const ended = subscription.endedAt !== undefined;
  const held =
    !ended || subscription.heldCount > 0 ? { heldCount: subscription.heldCount, nextDeliveryAt: subscription.nextDeliveryAt?.toISOString() ?? null } : {};
  return {
    ...subscriptionView(subscription),
    ...held,
    ...(ended ? { ended: true as const, endedAt: subscription.endedAt?.toISOString(), reason: subscription.endReason } : {}),
  };
}
