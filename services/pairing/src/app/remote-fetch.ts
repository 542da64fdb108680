/**
 * One fetch of one of this relay's subscriptions to a paired relay: ask that relay for what it kept after our
 * cursor, hand it to our subscription service (replayed after a drop, between link_lost and link_restored), and
 * say what to store. Nothing is stored before every step succeeded, so a crash or a failed ingest fetches the
 * same events again, and the subscription service takes each event id once.
 */
import { isAppError } from '@relay/errors';
import { planFetch, sinceLastFetch } from '../domain/remote-link.ts';
import type { Clock, RemoteEventsLine, RemoteIngest, RemoteSubscription, RemoteSubscriptionStore } from './remote-ports.ts';

/** What to store after a fetch, or `ended` when the subscription no longer exists here (or this batch ended it). */
export type FetchResult = { kind: 'settled'; cursor: number; online: boolean } | { kind: 'ended' };

export async function fetchRemoteSubscription(
  subscription: RemoteSubscription,
  deps: { line: RemoteEventsLine; ingest: RemoteIngest },
  now: Date,
  options: { intervalMs?: number; reported?: { online: boolean } } = {},
): Promise<FetchResult> {
  const { subscriptionId, relay } = subscription;
  const outcome = await deps.line.fetch(relay, subscriptionId, subscription.cursor);
  const plan = planFetch({ ...subscription, ...sinceLastFetch(subscription.dueAt, options.intervalMs ?? 0, now) }, outcome);
  try {
    for (const step of plan.steps) {
      if (step.kind === 'ingest') {
        const { ended } = await deps.ingest.ingest({ subscriptionId, relay, events: step.events, replayed: step.replayed, dropped: step.dropped });
        if (ended) return { kind: 'ended' };
      } else {
        await deps.ingest.reportLink({ subscriptionId, relay, online: step.online, at: step.at ?? now });
        if (options.reported) options.reported.online = step.online;
      }
    }
  } catch (error) {
    if (isAppError(error) && error.code === 'REMOTE_RELAY_NOT_FOUND') return { kind: 'ended' };
    throw error;
  }
  return { kind: 'settled', cursor: plan.cursor, online: plan.online };
}

/**
 * Fetches one subscription due for a fetch (fetchRemoteSubscription) and stores where it stands, due again
 * `intervalMs` after it is done. One that ended here (unsubscribed, once fired, the watcher archived) is no longer
 * fetched and its watch there is ended; `endError` says why that relay did not end it (it drops the watch after 7
 * days). A fetch that fails keeps the cursor, is due again as well, and throws.
 */
export async function fetchDueSubscription(
  subscription: RemoteSubscription,
  deps: { line: RemoteEventsLine; ingest: RemoteIngest; subscriptions: RemoteSubscriptionStore; clock: Clock },
  intervalMs: number,
): Promise<{ kind: 'settled' } | { kind: 'ended'; endError: unknown }> {
  const { subscriptions, line, clock } = deps;
  const next = () => new Date(clock.now().getTime() + intervalMs);
  // What our subscription service was last told of the link: a failure after a link_lost it wrote stores the link
  // as down, so that the next fetch delivers the batch as the replay that link_lost opened.
  const reported = { online: subscription.online };
  try {
    const result = await fetchRemoteSubscription(subscription, deps, clock.now(), { intervalMs, reported });
    if (result.kind === 'settled') {
      await subscriptions.settle(subscription.subscriptionId, result, next());
      return { kind: 'settled' };
    }
    await subscriptions.close(subscription.subscriptionId);
  } catch (error) {
    await subscriptions.settle(subscription.subscriptionId, { cursor: subscription.cursor, online: reported.online }, next()).catch(() => undefined);
    throw error;
  }
  const endError = await line.end(subscription.relay, subscription.subscriptionId).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { kind: 'ended', endError };
}
