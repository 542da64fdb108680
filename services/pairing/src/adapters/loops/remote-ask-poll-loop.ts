/**
 * The poll loop of this relay's asks on paired relays: takes the asks due for a poll (leased, so replicas share
 * them), polls each, and stores when to look again: 5 s while its relay answers, 30 s while it does not. An
 * answered or dismissed ask is passed to the asking conversation, then no longer polled.
 */
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import { untilDue } from './until-due.ts';
import { pollDueAsk } from '../../app/remote-asks.ts';
import type { AskPollIntervals, PolledAsk } from '../../domain/remote-asks.ts';
import type { RemoteAnswerSink, RemoteAsksLine, RemoteAskStore } from '../../app/remote-ports.ts';

const BATCH = 20;
/** How long a poll may hold its ask (relay time) before another replica may take it over. */
const LEASE_MS = 60_000;
/** The shortest pause between looks for due asks (relay time). */
const LOOK_MS = 1_000;
/** The longest: an ask kept by another replica is first polled within it (one kept here nudges the loop). */
const IDLE_LOOK_MS = 30_000;

export class RemoteAskPollLoop {
  #stopped = false;
  #wake = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: { asks: RemoteAskStore; line: RemoteAsksLine; sink: RemoteAnswerSink; clock: Clock; logger: Logger; intervals: AskPollIntervals },
  ) {}

  start(): void {
    this.#running ??= this.#run();
  }

  /** An ask was kept here: look now rather than at the next pass. */
  nudge(): void {
    this.#wake.abort();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { asks, clock, logger } = this.deps;
    while (!this.#stopped) {
      this.#wake = new AbortController();
      let pauseMs = LOOK_MS;
      try {
        const now = clock.now();
        const due = await asks.claimDue(now, new Date(now.getTime() + LEASE_MS), BATCH);
        await Promise.all(due.map((ask) => this.#poll(ask)));
        // Nothing waits in between: sleep until the next ask is due (a full batch goes on after the shortest pause).
        if (due.length < BATCH) pauseMs = untilDue(await asks.nextDueAt(), clock.now(), LOOK_MS, IDLE_LOOK_MS);
      } catch (error) {
        logger.error({ err: error }, 'remote ask poll pass failed; trying again');
      }
      if (this.#stopped) break;
      await clock.sleep(pauseMs, this.#wake.signal).catch(() => undefined);
    }
  }

  async #poll(ask: PolledAsk): Promise<void> {
    await pollDueAsk(ask, this.deps).catch((error: unknown) => {
      this.deps.logger.error({ err: error, relay: ask.relay }, 'polling a remote ask failed; it is polled again');
    });
  }
}
