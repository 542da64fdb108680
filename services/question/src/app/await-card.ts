import { CardLimits } from '../domain/card-limits.ts';
import type { Card } from '../domain/entities.ts';
import { invalidInput, notFound } from '../domain/errors.ts';
import type { CardDecisions, CardStore, Clock } from './ports.ts';

export interface AwaitCardDeps {
  store: CardStore;
  decisions: CardDecisions;
  /** The relay clock: wait_seconds runs on it. */
  clock: Clock;
  /** Real time: progress keeps the call alive on the wire, whatever the relay clock's rate. */
  realTime: Clock;
  progressIntervalMs: number;
}

export interface AwaitCardInput {
  cardId: string;
  /** Relay-clock seconds; 0 answers the card as it stands. */
  waitSeconds: number;
}

/**
 * Real time between two reads of a card that no decision nudged: a decision wakes its waits through CardDecisions
 * (NOTIFY on commit, every watcher told again when the listener reconnects), so this read only bounds how late a
 * nudge lost some other way is made up for. At every keep-alive (5 s), 1,000 waits on pending cards read 200 cards a
 * second, the question service's main work while nobody decides (bench/waits.bench.ts).
 */
export const SAFETY_READ_MS = 60_000;

/** A keep-alive with the relay-clock seconds waited so far, or the card (always the last event). */
export type AwaitCardEvent = { progressSeconds: number } | { card: Card };

/**
 * Waits for a card to be decided: progress every progressIntervalMs of real time, then the card once
 * it is decided, or still pending when waitSeconds of relay-clock time have passed. Ends without a
 * card when `signal` aborts (the caller went away or the service is stopping).
 */
export async function* awaitCard(deps: AwaitCardDeps, input: AwaitCardInput, signal: AbortSignal): AsyncGenerator<AwaitCardEvent> {
  if (input.cardId === '') throw invalidInput('card_id is required', { field: 'card_id' });
  if (!Number.isInteger(input.waitSeconds) || input.waitSeconds < 0 || input.waitSeconds > CardLimits.WAIT_SECONDS) {
    throw invalidInput(`wait_seconds must be 0 to ${CardLimits.WAIT_SECONDS}`, { field: 'wait_seconds' });
  }
  // Every timer below ends with this, however the generator ends.
  const done = new AbortController();
  const stop = AbortSignal.any([signal, done.signal]);
  const nudge = new Nudge();
  stop.addEventListener('abort', () => nudge.fire(), { once: true });
  // Watch before the first read, so a decision between the read and the wait is not missed.
  const unwatch = deps.decisions.watch(input.cardId, () => nudge.fire());
  try {
    let card = await deps.store.find(input.cardId);
    if (card === undefined) throw notFound(input.cardId);
    const startedMs = deps.clock.now().getTime();
    let timeUp = input.waitSeconds === 0;
    if (!timeUp) {
      deps.clock.sleep(input.waitSeconds * 1000, stop).then(
        () => {
          timeUp = true;
          nudge.fire();
        },
        () => undefined,
      );
    }
    let tick: Promise<boolean> | undefined;
    let readAt = deps.realTime.now().getTime();
    while (card.status === 'pending' && !timeUp) {
      // true when the keep-alive is due; false when aborted.
      tick ??= deps.realTime.sleep(deps.progressIntervalMs, stop).then(
        () => true,
        () => false,
      );
      const ticked = await Promise.race([tick, nudge.fired.then(() => false)]);
      if (stop.aborted) return;
      const nudged = nudge.reset();
      if (nudged || deps.realTime.now().getTime() - readAt >= SAFETY_READ_MS) {
        readAt = deps.realTime.now().getTime();
        card = (await deps.store.find(input.cardId)) ?? card;
      }
      if (ticked) {
        tick = undefined;
        if (card.status === 'pending' && !timeUp) yield { progressSeconds: Math.floor((deps.clock.now().getTime() - startedMs) / 1000) };
      }
    }
    if (stop.aborted) return;
    // The waiting call takes a keyed card's decision, so the same call made again asks anew.
    if (card.callKey !== '' && card.status !== 'pending') await deps.store.markUsed(card.id, deps.clock.now());
    yield { card };
  } finally {
    unwatch();
    done.abort();
  }
}

/** A wake-up that is not lost when it fires while nobody waits: `fired` stays resolved until `reset()`. */
class Nudge {
  private settled = false;
  private resolve: () => void = () => undefined;
  fired: Promise<void> = this.arm();

  fire(): void {
    this.settled = true;
    this.resolve();
  }

  /** Re-arms after a wake-up; call it before re-reading what the wake-up was about. Answers whether it had fired. */
  reset(): boolean {
    if (!this.settled) return false;
    this.settled = false;
    this.fired = this.arm();
    return true;
  }

  private arm(): Promise<void> {
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}
