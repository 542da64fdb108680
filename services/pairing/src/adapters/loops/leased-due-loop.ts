/**
 * The loop under the pairing service's polling of paired relays: it leases the rows due now (so replicas share them
 * and never work one twice at once), works each, and sleeps until the next is due — at least `lookMs` (a backlog
 * does not spin; a full batch goes on after it) and at most 30 s (rows another replica added, which nudges only its
 * own loop, are seen within it). Any number of replicas run it on one database.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { untilDue } from './until-due.ts';

/** How many rows one replica works in one pass. */
const BATCH = 20;
/** How long working a row may hold it (relay time) before another replica may take it over. */
const LEASE_MS = 60_000;
/** The longest pause between looks (relay time). */
const IDLE_LOOK_MS = 30_000;

/** The rows a loop works: leased when due, then worked one by one. */
export interface LeasedRows<T> {
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<T[]>;
  nextDueAt(): Promise<Date | undefined>;
}

export interface LeasedDueLoopOptions<T> {
  rows: LeasedRows<T>;
  /** Works one leased row; a failure is its own to log (the pass goes on with the others). */
  work(row: T): Promise<void>;
  clock: Clock;
  logger: Logger;
  /** The shortest pause between looks (relay time). */
  lookMs: number;
  /** What the log says when a pass fails. */
  passFailed: string;
}

export class LeasedDueLoop<T> {
  #stopped = false;
  #wake = new AbortController();
  #running: Promise<void> | undefined;

  constructor(private readonly options: LeasedDueLoopOptions<T>) {}

  start(): void {
    this.#running ??= this.#run();
  }

  /** Looks again now (a row was added here). */
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
    const { rows, work, clock, logger, lookMs, passFailed } = this.options;
    while (!this.#stopped) {
      this.#wake = new AbortController();
      let pauseMs = lookMs;
      try {
        const now = clock.now();
        const due = await rows.claimDue(now, new Date(now.getTime() + LEASE_MS), BATCH);
        await Promise.all(due.map(work));
        if (due.length < BATCH) pauseMs = untilDue(await rows.nextDueAt(), clock.now(), lookMs, IDLE_LOOK_MS);
      } catch (error) {
        logger.error({ err: error }, passFailed);
      }
      if (this.#stopped) break;
      await clock.sleep(pauseMs, this.#wake.signal).catch(() => undefined);
    }
  }
}
