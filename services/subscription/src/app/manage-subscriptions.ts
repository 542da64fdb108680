/**
 * The watching actions of a conversation (the watcher): subscribe, unsubscribe, list, transfer, and where it stands
 * with its own prompt (no echo).
 */
import type { OwnPromptState } from '../domain/delivery/index.ts';
import { subscriptionRefusal } from '../domain/errors.ts';
import { EMPTY_WATCHER_STATE, heldBySubscription } from '../domain/subscriptions/plan-watcher.ts';
import { requireRoomFor, type SubscriptionSpec } from '../domain/subscriptions/subscribe-rules.ts';
import { ENDED_LISTED_MS, newSubscriptionId, type Subscription } from '../domain/subscriptions/subscription.ts';
import type { WatchDeps } from './ports.ts';

/** A subscription with what its digest or quiet hours hold now. */
export type ListedSubscription = Subscription & { heldCount: number; nextDeliveryAt: Date | null };

/** Makes a subscription (or only checks it, with dryRun). Answers it and whether it is the watcher's first. */
export async function subscribe(
  deps: WatchDeps,
  input: { userId: string; watcherSessionId: string; spec: SubscriptionSpec; relay?: string; now: Date; dryRun: boolean },
): Promise<{ subscription: Subscription; first: boolean }> {
  return deps.store.transaction(async (tx) => {
    await tx.lockWatcher(input.watcherSessionId, input.userId);
    const active = await tx.countActiveSubscriptions(input.watcherSessionId);
    requireRoomFor(active);
    const subscription: Subscription = {
      ...input.spec,
      id: input.dryRun ? '' : newSubscriptionId(deps.random ?? Math.random),
      userId: input.userId,
      watcherSessionId: input.watcherSessionId,
      relay: input.relay ?? '',
      createdAt: input.now,
      lastDeliveredAt: null,
      endedAt: null,
      endReason: null,
    };
    if (!input.dryRun) {
      await tx.createSubscription(subscription);
      // Due now: the planner computes its stalled, all_idle and heartbeat times from here on.
      await tx.makeWatcherDue(input.watcherSessionId, input.now);
    }
    return { subscription, first: active === 0 };
  });
}

/** Ends one subscription of the watcher, or every active one (subscriptionId null); answers the ids ended. */
export async function unsubscribe(deps: WatchDeps, input: { watcherSessionId: string; subscriptionId: string | null; now: Date }): Promise<string[]> {
  return deps.store.transaction(async (tx) => {
    const ids = await tx.activeSubscriptionIds(input.watcherSessionId, input.subscriptionId);
    if (input.subscriptionId !== null && ids.length === 0) {
      throw subscriptionRefusal(
        'REMOTE_RELAY_NOT_FOUND',
        `No active subscription ${input.subscriptionId} in this conversation; list_subscriptions shows them.`,
      );
    }
    await tx.endSubscriptions(ids, input.now, 'unsubscribed');
    return ids;
  });
}

/** The watcher's active subscriptions and those ended in the last hour (after the active ones), with their held events and when they come. */
export async function listSubscriptions(deps: WatchDeps, watcherSessionId: string, now: Date): Promise<ListedSubscription[]> {
  const {
    subscriptions,
    held,
    state = EMPTY_WATCHER_STATE,
  } = await deps.store.subscriptionListing(watcherSessionId, new Date(now.getTime() - ENDED_LISTED_MS));
  return subscriptions
    .map((subscription) => ({ ...subscription, ...heldBySubscription(held, subscription.id, state, deps.timings) }))
    .sort((a, b) => Number(a.endedAt !== null) - Number(b.endedAt !== null));
}

/** Every active subscription of the user's conversations, oldest first. */
export function listUserSubscriptions(deps: WatchDeps, userId: string): Promise<Subscription[]> {
  return deps.store.activeSubscriptionsOfUser(userId);
}

/** Moves every active subscription of `from` to `to`, their held events and own-prompt states with them (or only checks it, with dryRun). */
export async function transferSubscriptions(
  deps: WatchDeps,
  input: { userId: string; from: string; to: string; now: Date; dryRun: boolean },
): Promise<Subscription[]> {
  if (input.from === input.to) {
    throw subscriptionRefusal('REMOTE_RELAY_INVALID_INPUT', 'transfer_subscriptions: from names this conversation; name the conversation to take them from.');
  }
  return deps.store.transaction(async (tx) => {
    await tx.lockWatcher(input.to, input.userId);
    const moving = await tx.activeSubscriptions(input.from, input.userId);
    requireRoomFor(await tx.countActiveSubscriptions(input.to), moving.length);
    if (input.dryRun || moving.length === 0) return moving;
    await tx.moveSubscriptions(
      moving.map((s) => s.id),
      input.from,
      input.to,
    );
    // The new watcher is evaluated at once.
    await tx.makeWatcherDue(input.to, input.now);
    return moving.map((s) => ({ ...s, watcherSessionId: input.to }));
  });
}

/** Records where the watcher stands with its prompt; events held while it waited are planned again. */
export async function notePromptState(
  deps: WatchDeps,
  input: { watcherSessionId: string; messageId: string; state: OwnPromptState; now: Date },
): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const state = await tx.lockWatcherState(input.watcherSessionId);
    if (state === undefined) return;
    await tx.saveWatcherState(input.watcherSessionId, { ...state, ownPrompts: { ...state.ownPrompts, [input.messageId]: input.state } }, input.now);
    if (input.state !== 'waiting') await tx.releaseWaitingEvents(input.watcherSessionId);
  });
}
