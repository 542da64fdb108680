import type { Clock } from '@relay/clock';
import { outsideTrace, type Logger } from '@relay/telemetry';
import { fireDueSchedules } from '../../app/fire-due-schedules.ts';
import type { LoopGuard, ScheduleStore } from '../../app/ports.ts';
import { nextGuardRetryMs, type Firing } from '../../domain/firing.ts';

/** The longest sleep between looks (relay time): held firings and other replicas' new schedules wait no longer. */
export const MAX_SLEEP_MS = 60_000;
/** The sleep while a due row stays due (another replica holds it), so it is not polled in a tight loop. */
const HELD_RETRY_MS = 1_000;

/**
 * The firing loop on the relay Clock: fires what is due, then sleeps until the earliest due time, at most a
 * minute, or until `nudge` (a schedule changed here). Any number of replicas run it on one database.
 */
export class FiringLoop {
  private stopped = false;
  private wake = new AbortController();
  private running: Promise<void> | undefined;

  /** `onFired`: called with a pass's firings once it has committed (publish their commands, measure their lateness). */
  constructor(private readonly deps: { store: ScheduleStore; guard: LoopGuard; clock: Clock; logger: Logger; onFired?: (firings: Firing[]) => void }) {}

  start(): void {
    // The loop belongs to no trace, whatever context starts it; a firing starts its own.
    this.running ??= outsideTrace(() => this.run());
  }

  /** Looks again now (a schedule was set or ended). */
  nudge(): void {
    this.wake.abort();
  }

  /** Stops after the current pass; its transaction commits or rolls back as a whole. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const { store, clock, logger } = this.deps;
    // How long a firing whose loop guard could not be asked waits for its next look: short while the session service
    // is starting, doubling to a few seconds while it stays away, short again once it answered.
    let guardRetryMs = nextGuardRetryMs(undefined);
    while (!this.stopped) {
      this.wake = new AbortController();
      try {
        for (;;) {
          const { firings, full, ...outcome } = await fireDueSchedules(this.deps, clock.now(), guardRetryMs);
          if (outcome.deferred > 0) guardRetryMs = nextGuardRetryMs(guardRetryMs);
          else if (outcome.fired + outcome.held > 0) guardRetryMs = nextGuardRetryMs(undefined);
          // Told once the pass's transaction has committed: a rolled-back firing did not happen.
          if (firings.length > 0) this.deps.onFired?.(firings);
          if (outcome.fired + outcome.skipped + outcome.held + outcome.deferred > 0) logger.info(outcome, 'due schedules handled');
          if (!full || this.stopped) break;
        }
      } catch (error) {
        logger.error({ err: error }, 'firing pass failed; trying again');
      }
      if (this.stopped) break;
      let sleepMs = MAX_SLEEP_MS;
      try {
        const earliest = await store.earliestDue();
        // Until the earliest due time exactly: a floor here would fire a schedule due sooner that much late.
        const untilMs = earliest === undefined ? MAX_SLEEP_MS : earliest.getTime() - clock.now().getTime();
        sleepMs = untilMs > 0 ? Math.min(MAX_SLEEP_MS, untilMs) : HELD_RETRY_MS;
      } catch (error) {
        logger.error({ err: error }, 'reading the next due time failed');
      }
      await clock.sleep(sleepMs, this.wake.signal).catch(() => undefined);
    }
  }
}
