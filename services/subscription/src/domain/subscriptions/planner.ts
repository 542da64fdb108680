/**
 * The planning loop of one replica: evaluates due watchers one at a time until none is free, then sleeps
 * a short real-time interval (or until an event arrives). Due times are read from the relay Clock; the
 * interval only bounds how late a due watcher is noticed.
 */
import type { Clock } from '@relay/clock';
import { outsideTrace, type Logger } from '@relay/telemetry';

export interface DueWatchers {
  evaluateNextDue(now: Date): Promise<boolean>;
}

export class Planner {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(private readonly options: { watchers: DueWatchers; clock: Clock; logger: Logger; pollMs?: number; batch?: number }) {}

  start(): void {
    this.#schedule(0);
  }

  /** Evaluates now (an event came in); a pass already running runs once more. */
  nudge(): void {
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  /** Runs passes until no watcher is due; answers how many were evaluated (tests). */
  async drain(): Promise<number> {
    let count = 0;
    while (await this.options.watchers.evaluateNextDue(this.options.clock.now())) count++;
    return count;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    // A nudge comes from inside a message's or a call's span; the rounds it starts belong to no trace.
    this.#timer = outsideTrace(() => setTimeout(() => void this.#pass(), ms));
  }

  async #pass(): Promise<void> {
    if (this.#running || this.#stopped) return;
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          const batch = this.options.batch ?? 100;
          for (let i = 0; i < batch && !this.#stopped; i++) {
            if (!(await this.options.watchers.evaluateNextDue(this.options.clock.now()))) break;
          }
        } catch (error) {
          this.options.logger.error({ err: error }, 'evaluating watchers failed; trying again');
        }
      } while (this.#again && !this.#stopped);
    })();
    await this.#running;
    this.#running = undefined;
    this.#schedule(this.options.pollMs ?? 200);
  }
}
