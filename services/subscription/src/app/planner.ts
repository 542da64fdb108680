/**
 * The planning loop of one replica: evaluates due watchers in batches (one transaction each) until none is free,
 * then sleeps until the next watcher is due by the relay Clock, or until nudged (an event came in, a subscription
 * changed). The sleep is capped, a slow safety net for what another replica made due; nothing polls faster.
 */
import type { Clock } from '@relay/clock';
import { outsideTrace, type Logger } from '@relay/telemetry';
import { evaluateDueWatchers } from './evaluate-watchers.ts';
import type { WatchDeps } from './ports.ts';

/** The longest sleep (relay time): a watcher another replica made due is noticed by then at the latest. */
export const MAX_SLEEP_MS = 60_000;
/** The sleep when a due watcher is held by another replica, so it is not polled in a tight loop. */
const HELD_RETRY_MS = 100;
const DEFAULT_BATCH = 100;

export class Planner {
  #wake = new AbortController();
  // When the current sleep ends (relay time); a watcher due before then cuts it short.
  #sleepingUntilMs = Number.POSITIVE_INFINITY;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly options: { watch: WatchDeps; clock: Clock; logger: Logger; batch?: number }) {}

  start(): void {
    // A nudge comes from inside a message's or a call's span; the passes belong to no trace.
    this.#running ??= outsideTrace(() => this.#run());
  }

  /** Evaluates now (an event came in); a pass already running runs once more. */
  nudge(): void {
    this.#wake.abort();
  }

  /**
   * A watcher was evaluated elsewhere (an ingest) and is due again at `at`: wakes the loop only when that is before
   * its own next look, so a burst of events costs the loop nothing.
   */
  dueBy(at: Date | null): void {
    if (at !== null && at.getTime() < this.#sleepingUntilMs) this.nudge();
  }

  /** Runs passes until no watcher is due; answers how many were evaluated (tests). */
  async drain(): Promise<number> {
    let count = 0;
    for (;;) {
      const pass = await this.#pass();
      count += pass.evaluated;
      if (pass.evaluated === 0) return count;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
  }

  async #pass(): Promise<{ evaluated: number; full: boolean }> {
    const batch = this.options.batch ?? DEFAULT_BATCH;
    const pass = await evaluateDueWatchers(this.options.watch, this.options.clock.now(), batch);
    return { evaluated: pass.evaluated, full: pass.evaluated === batch };
  }

  async #run(): Promise<void> {
    const { watch, clock, logger } = this.options;
    while (!this.#stopped) {
      // Before the pass: a nudge during it means one more pass.
      this.#wake = new AbortController();
      this.#sleepingUntilMs = Number.NEGATIVE_INFINITY;
      try {
        while (!this.#stopped && (await this.#pass()).full);
      } catch (error) {
        logger.error({ err: error }, 'evaluating watchers failed; trying again');
      }
      if (this.#stopped) break;
      if (this.#wake.signal.aborted) continue;
      let sleepMs = MAX_SLEEP_MS;
      try {
        const next = await watch.store.nextDueAt();
        if (next !== null) {
          const untilMs = next.getTime() - clock.now().getTime();
          sleepMs = untilMs <= 0 ? HELD_RETRY_MS : Math.min(MAX_SLEEP_MS, untilMs);
        }
      } catch (error) {
        logger.error({ err: error }, 'reading when the next watcher is due failed');
      }
      this.#sleepingUntilMs = clock.now().getTime() + sleepMs;
      await clock.sleep(sleepMs, this.#wake.signal).catch(() => undefined);
    }
  }
}
