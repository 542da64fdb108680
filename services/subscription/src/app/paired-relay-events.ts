/**
 * Paired relays: their events for our subscriptions to their sessions, their links' states, unpairing, and the
 * computed events (stalled, all_idle, the heartbeat) of their subscriptions to our sessions.
 */
import { activeTraceParent } from '@relay/telemetry';
import type { RelayEvent } from '../domain/delivery/index.ts';
import { subscriptionRefusal } from '../domain/errors.ts';
import {
  afterArchives,
  parseRemoteEvents,
  remoteArchives,
  remoteSourceId,
  takesRemoteEvent,
  type RemoteEventInput,
} from '../domain/subscriptions/remote-events.ts';
import { computeRemoteWatchEvents, type ComputedRemoteEvent, type RemoteWatchSpec } from '../domain/subscriptions/remote-watch-events.ts';
import type { Subscription } from '../domain/subscriptions/subscription.ts';
import type { WatchDeps, WatchTransaction } from './ports.ts';

/**
 * A paired relay's events for one of its subscriptions: those the subscription takes are stored for its watcher
 * once per (subscription, event id). Replayed ones are counted for the link_restored line. An archive there of a
 * session it lists takes that session off the list, after the batch's rows are stored; a list left empty ends the
 * subscription (`ended`). Answers how many were new and how many it had taken before.
 */
export async function ingestRemoteEvents(
  deps: WatchDeps,
  input: { subscriptionId: string; relay: string; events: readonly RemoteEventInput[]; replayed: boolean; dropped: number; now: Date },
): Promise<{ accepted: number; duplicates: number; ended: boolean }> {
  const candidates = parseRemoteEvents(input.relay, input.events, input.replayed ? { dropped: Math.max(0, input.dropped) } : null);
  const archived = remoteArchives(input.events);
  return deps.store.transaction(async (tx) => {
    const subscription = await lockRelaySubscription(tx, input.subscriptionId, input.relay);
    const taken = candidates.filter((candidate) => takesRemoteEvent(subscription, candidate));
    const accepted = await addEvents(
      tx,
      subscription,
      taken.map((candidate) => ({ sourceEventId: remoteSourceId(subscription.id, candidate.eventId), event: candidate.event })),
      input.now,
    );
    if (input.replayed && accepted > 0) await tx.addReplayed(subscription.id, accepted);
    const left = afterArchives(subscription, archived);
    if (left?.ended) await tx.endSubscriptions([subscription.id], input.now, 'session_archived');
    else if (left) await tx.setSubscriptionSessions(subscription.id, left.sessions);
    return { accepted, duplicates: taken.length - accepted, ended: left?.ended ?? false };
  });
}

/**
 * The link to the subscription's relay went down or came back at `at`: a link_lost row, or a link_restored line
 * with the replayed events taken since. Answers false when the link already was in that state.
 */
export async function reportLinkState(
  deps: WatchDeps,
  input: { subscriptionId: string; relay: string; online: boolean; at: Date; now: Date },
): Promise<boolean> {
  return deps.store.transaction(async (tx) => {
    const subscription = await lockRelaySubscription(tx, input.subscriptionId, input.relay);
    const link = await tx.linkState(subscription.id);
    if (link.online === input.online) return false;
    const base = { id: `link:${subscription.id}:${input.online ? 'restored' : 'lost'}:${input.at.toISOString()}`, occurredAt: input.at, relay: input.relay };
    const event: RelayEvent = input.online
      ? { ...base, kind: 'link_restored', replayedCount: link.replayedPending, heldCount: 0 }
      : { ...base, kind: 'link_lost' };
    await tx.setLinkState(subscription.id, input.online, input.at);
    await addEvents(tx, subscription, [{ sourceEventId: event.id, event }], input.now);
    return true;
  });
}

/** Ends the active subscriptions watching `relay` (of one user, or of all when userId is null): it was unpaired. */
export async function endRelaySubscriptions(deps: WatchDeps, input: { userId: string | null; relay: string; now: Date }): Promise<string[]> {
  return deps.store.transaction(async (tx) => {
    const ids = await tx.activeRelaySubscriptionIds(input.relay, input.userId);
    await tx.endSubscriptions(ids, input.now, 'unpaired');
    return ids;
  });
}

/**
 * The watched side: stalled, all_idle and the heartbeat due now for a paired relay's subscription to our sessions,
 * from the session activity here (nothing is stored); answers when to ask again.
 */
export async function computeRemoteWatch(
  deps: WatchDeps,
  watch: RemoteWatchSpec,
  now: Date,
): Promise<{ events: ComputedRemoteEvent[]; nextDueAt: Date | null }> {
  const where = watch.scope === 'all' ? { userIds: [watch.userId], sessionIds: [] } : { userIds: [], sessionIds: watch.sessions.map((session) => session.id) };
  const activity = (await deps.store.sessionActivity(where)).filter((row) => row.userId === watch.userId);
  return computeRemoteWatchEvents(watch, activity, now);
}

/** The active subscription `id` watching `relay`, locked; NOT_FOUND otherwise. */
async function lockRelaySubscription(tx: WatchTransaction, id: string, relay: string): Promise<Subscription> {
  const subscription = await tx.lockSubscription(id);
  if (subscription === undefined || subscription.endedAt !== null || subscription.relay === '' || subscription.relay !== relay) {
    throw subscriptionRefusal('REMOTE_RELAY_NOT_FOUND', `No active subscription ${id} to relay ${relay} on this relay.`);
  }
  return subscription;
}

/** Stores events of one subscription for its watcher, with the active span's trace, and makes it due; answers how many were new. */
async function addEvents(
  tx: WatchTransaction,
  subscription: Subscription,
  events: readonly { sourceEventId: string; event: RelayEvent }[],
  now: Date,
): Promise<number> {
  if (events.length === 0) return 0;
  const traceParent = activeTraceParent();
  return tx.addEvents(
    events.map((event) => ({
      ...event,
      subscriptionIds: [subscription.id],
      watcherSessionId: subscription.watcherSessionId,
      userId: subscription.userId,
      traceParent,
    })),
    now,
  );
}
