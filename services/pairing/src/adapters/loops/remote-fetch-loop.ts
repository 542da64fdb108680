/**
 * The fetch loop of this relay's subscriptions to paired relays' sessions (DESIGN.md, Remote events): every few
 * seconds it takes the subscriptions due for a fetch, leased so that replicas share them and never fetch one
 * twice at once, fetches each by cursor and stores where it stands. Any number of replicas run it on one database.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { fetchDueSubscription } from '../../app/remote-fetch.ts';
import type { RemoteEventsLine, RemoteIngest, RemoteSubscription, RemoteSubscriptionStore } from '../../app/remote-ports.ts';
import { LeasedDueLoop } from './leased-due-loop.ts';

export class RemoteFetchLoop extends LeasedDueLoop<RemoteSubscription> {
  constructor(deps: {
    subscriptions: RemoteSubscriptionStore;
    line: RemoteEventsLine;
    ingest: RemoteIngest;
    clock: Clock;
    logger: Logger;
    /** Between fetches of one subscription (relay time); also the shortest pause between looks. */
    intervalMs: number;
  }) {
    super({
      rows: deps.subscriptions,
      work: (subscription) => fetchOne(subscription, deps),
      clock: deps.clock,
      logger: deps.logger,
      lookMs: deps.intervalMs,
      passFailed: 'remote fetch pass failed; trying again',
    });
  }
}

async function fetchOne(subscription: RemoteSubscription, deps: ConstructorParameters<typeof RemoteFetchLoop>[0]): Promise<void> {
  try {
    const fetched = await fetchDueSubscription(subscription, deps, deps.intervalMs);
    if (fetched.kind === 'ended' && fetched.endError !== undefined) {
      deps.logger.warn({ err: fetched.endError, relay: subscription.relay }, 'a paired relay did not end a watch; it drops it after 7 days');
    }
  } catch (error) {
    deps.logger.error({ err: error, relay: subscription.relay }, 'fetching remote events failed; the cursor stays');
  }
}
