/**
 * One fetch of one of this relay's subscriptions to a paired relay: ask that relay for what it kept after our
 * cursor, hand it to our subscription service (replayed after a drop, between link_lost and link_restored), and
 * say what to store. Nothing is stored before every step succeeded, so a crash or a failed ingest fetches the
 * same events again, and the subscription service takes each event id once.
 */
import { isAppError } from '@relay/errors';
import { planFetch } from '../domain/remote-link.ts';
import type { RemoteEventsLine, RemoteIngest, RemoteSubscription } from './remote-ports.ts';

/** What to store after a fetch, or `ended` when the subscription no longer exists here (or this batch ended it). */
export type FetchResult = { kind: 'settled'; cursor: number; online: boolean } | { kind: 'ended' };

export async function fetchRemoteSubscription(
  subscription: RemoteSubscription,
  deps: { line: RemoteEventsLine; ingest: RemoteIngest },
  now: Date,
): Promise<FetchResult> {
  const { subscriptionId, relay } = subscription;
  const outcome = await deps.line.fetch(relay, subscriptionId, subscription.cursor);
  const plan = planFetch(subscription, outcome);
  try {
    for (const step of plan.steps) {
      if (step.kind === 'ingest') {
        const { ended } = await deps.ingest.ingest({ subscriptionId, relay, events: step.events, replayed: step.replayed, dropped: step.dropped });
        if (ended) return { kind: 'ended' };
      } else {
        await deps.ingest.reportLink({ subscriptionId, relay, online: step.online, at: now });
      }
    }
  } catch (error) {
    if (isAppError(error) && error.code === 'REMOTE_RELAY_NOT_FOUND') return { kind: 'ended' };
    throw error;
  }
  return { kind: 'settled', cursor: plan.cursor, online: plan.online };
}
