/**
 * stalled, all_idle and the heartbeat for paired relays' subscriptions to our sessions (docs/adr/0013): every few
 * seconds (relay time) our subscription service computes what is due for each watch that asks for them, from this
 * relay's session activity with the watch's exclude, and what is new is kept for the watch like any other event,
 * so the watching relay fetches it by cursor and keeps it while the link is down. Each computed id is kept once
 * ever, so replicas running this loop side by side keep nothing twice.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { RemoteWatchStore, WatchEventComputer } from '../../app/remote-ports.ts';
import { computingWatches, keepComputedEvents } from '../../app/remote-watches.ts';

export class RemoteComputeLoop {
  #stopped = false;
  #wake = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      watches: RemoteWatchStore;
      computer: WatchEventComputer;
      clock: Clock;
      logger: Logger;
      /** Between two passes (relay time). */
      intervalMs: number;
    },
  ) {}

  start(): void {
    this.#running ??= this.#run();
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { watches, clock, logger, intervalMs } = this.deps;
    while (!this.#stopped) {
      this.#wake = new AbortController();
      try {
        for (const watch of await computingWatches(watches)) {
          if (this.#stopped) break;
          try {
            await keepComputedEvents(watch, this.deps);
          } catch (error) {
            logger.error(
              { err: error, relay: watch.relay, watch: watch.id },
              "computing a watch's stalled, all_idle and heartbeat failed; the next pass tries again",
            );
          }
        }
      } catch (error) {
        logger.error({ err: error }, 'remote compute pass failed; trying again');
      }
      if (this.#stopped) break;
      await clock.sleep(intervalMs, this.#wake.signal).catch(() => undefined);
    }
  }
}
