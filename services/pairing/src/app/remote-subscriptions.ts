/**
 * This relay's subscriptions to a paired relay's sessions, and the watches paired relays keep here: registering
 * one there before it is fetched here, ending one on both sides, and ending everything of a relay when the
 * pairing is removed (spec, How long a subscription lives; an ask also ends with the pairing).
 */
import { invalidInput } from '../domain/errors.ts';
import type { RemoteAskStore, RemoteEventsLine, RemoteIngest, RemoteSubscriptionStore, RemoteWatchSpec, RemoteWatchStore } from './remote-ports.ts';

/**
 * Registers the watch on `relay` (on a dry run only its checks run there) and, for a real subscription, starts
 * fetching it here from cursor 0. Answers the listed sessions as that relay knows them.
 */
export async function openRemoteSubscription(
  relay: string,
  spec: RemoteWatchSpec,
  deps: { line: RemoteEventsLine; subscriptions: RemoteSubscriptionStore },
  now: Date,
): Promise<{ sessions: { id: string; title: string }[] }> {
  if (!spec.dryRun && spec.id === '') throw invalidInput('A subscription to register needs its id.');
  const registered = await deps.line.register(relay, spec);
  if (!spec.dryRun) await deps.subscriptions.open(spec.id, relay, now);
  return registered;
}

/** Stops fetching a subscription and ends its watch on the paired relay, as far as that relay answers. */
export async function closeRemoteSubscription(
  subscriptionId: string,
  deps: { line: RemoteEventsLine; subscriptions: RemoteSubscriptionStore },
): Promise<boolean> {
  const closed = await deps.subscriptions.close(subscriptionId);
  if (closed === undefined) return false;
  // A relay that does not answer drops the watch's events after 7 days by itself.
  await deps.line.end(closed.relay, subscriptionId).catch(() => undefined);
  return true;
}

/**
 * The pairing with `relay` was removed here: our subscriptions to its sessions end (subscription service) and
 * are no longer fetched, the asks kept there are no longer polled (they end), and the watches it kept here are
 * dropped. Safe to run again.
 */
export async function endRelayEvents(
  relay: string,
  deps: { subscriptions: RemoteSubscriptionStore; watches: RemoteWatchStore; ingest: RemoteIngest; asks: RemoteAskStore },
): Promise<{ ended: string[] }> {
  const ended = await deps.ingest.endRelay(relay);
  await deps.subscriptions.closeRelay(relay);
  await deps.asks.dropRelay(relay);
  await deps.watches.endRelay(relay);
  return { ended };
}
