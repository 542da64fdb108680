/**
 * A subscription as this service keeps it, and how list_subscriptions shows one.
 */
import type { DeliverySubscription } from '../delivery/index.ts';
import type { SubscriptionSpec } from './subscribe-rules.ts';

export type Subscription = SubscriptionSpec & {
  id: string;
  userId: string;
  watcherSessionId: string;
  /** The paired relay whose sessions it watches; '' = this relay. */
  relay: string;
  createdAt: Date;
  lastDeliveredAt: Date | null;
  endedAt: Date | null;
  endReason: string | null;
};

/** Why a subscription ended, as list_subscriptions says it. */
export type EndReason = 'unsubscribed' | 'watcher_archived' | 'session_archived' | 'once_fired' | 'transferred' | 'unpaired';

/** How long an ended subscription stays in list_subscriptions. */
export const ENDED_LISTED_MS = 60 * 60_000;

/** What the delivery rules need of a subscription. */
export function deliveryView(subscription: Subscription): DeliverySubscription {
  return {
    id: subscription.id,
    createdAt: subscription.createdAt,
    once: subscription.once,
    digestMinutes: subscription.digestMinutes,
    quietHours: subscription.quietHours,
    lastDeliveredAt: subscription.lastDeliveredAt,
  };
}

/** A new subscription id: sub_ and ten lowercase letters or digits. */
export function newSubscriptionId(random: () => number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let id = 'sub_';
  for (let i = 0; i < 10; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}
