/**
 * The fetch loop of this relay's subscriptions to paired relays' sessions (DESIGN.md, Remote events): every few
 * seconds it takes the subscriptions due for a fetch, leased so that replicas share them and never fetch one
 * twice at once, fetches each by cursor and stores where it stands. Any number of replicas run it on one database.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { fetchDueSubscription } from '../../app/remote-fetch.ts';
import type { RemoteEventsLine, RemoteIngest, RemoteSubscription, RemoteSubscriptionStore } from '../../app/remote-ports.ts';
import { untilDue } from './until-due.ts';

/** How many subscriptions one replica fetches in one pass. */
const BATCH = 20;
/** How long a fetch may hold its subscription (relay time) before another replica may take it over. */
const LEASE_MS = 60_000;
/** The longest pause between looks: a subscription opened by another replica is first fetched within it (one opened here nudges the loop). */
const IDLE_LOOK_MS = 30_000;

export class RemoteFetchLoop {
  #stopped = false;
  #wake = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      subscriptions: RemoteSubscriptionStore;
      line: RemoteEventsLine;
      ingest: RemoteIngest;
      clock: Clock;
      logger: Logger;
      /** Between fetches of one subscription (relay time). */
      intervalMs: number;
    },
  ) {}

  start(): void {
    this.#running ??= this.#run();
  }

  /** Looks again now (a subscription was opened). */
  nudge(): void {
    this.#wake.abort();
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { subscriptions, clock, logger, intervalMs } = this.deps;
    while (!this.#stopped) {
      this.#wake = new AbortController();
      let pauseMs = intervalMs;
      try {
        const now = clock.now();
        const due = await subscriptions.claimDue(now, new Date(now.getTime() + LEASE_MS), BATCH);
        await Promise.all(due.map((subscription) => this.#fetch(subscription)));
        // Nothing waits in between: sleep until the next fetch is due (a full batch goes on after the interval).
        if (due.length < BATCH) pauseMs = untilDue(await subscriptions.nextDueAt(), clock.now(), intervalMs, IDLE_LOOK_MS);
      } catch (error) {
        logger.error({ err: error }, 'remote fetch pass failed; trying again');
      }
      if (this.#stopped) break;
      await clock.sleep(pauseMs, this.#wake.signal).catch(() => undefined);
    }
  }

  async #fetch(subscription: RemoteSubscription): Promise<void> {
    const { logger, intervalMs } = this.deps;
    try {
      const fetched = await fetchDueSubscription(subscription, this.deps, intervalMs);
      if (fetched.kind === 'ended' && fetched.endError !== undefined) {
        logger.warn({ err: fetched.endError, relay: subscription.relay }, 'a paired relay did not end a watch; it drops it after 7 days');
      }
    } catch (error) {
      logger.error({ err: error, relay: subscription.relay }, 'fetching remote events failed; the cursor stays');
    }
  }
}
