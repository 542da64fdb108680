import type { Clock } from '@relay/clock';
import { outsideTrace } from '@relay/telemetry';
import { isTurnOver, type Turn } from '../../domain/turns/turn.ts';
import type { TurnStore } from './turn-store.ts';
import type { TurnSignals } from './turn-signals.ts';

/** What a wait yields: keep-alives while the turn goes on, then the turn as it stands (last). */
export type WaitEvent = { kind: 'progress'; seconds: number } | { kind: 'result'; turn: Turn };

export interface WaitDeps {
  turns: Pick<TurnStore, 'findTurn'>;
  signals: TurnSignals;
  clock: Clock;
  /** Real time between keep-alives (default 5 s): they keep the transport and the caller's client alive. */
  progressIntervalMs?: number;
  /** Real time between looks at the turn row, in case a turn_ended nudge was missed (default 1 s). */
  pollIntervalMs?: number;
}

/**
 * Waits for `turn` to end, for at most `waitSeconds` of relay-clock time: the result at once when
 * it has ended already (or nothing is to be waited), else progress about every few seconds and the
 * result when it ends or the time runs out (then with its status so far: queued, running or
 * waiting_for_answer with its pending questions). Ends quietly when `signal` aborts.
 */
export async function* waitForTurn(deps: WaitDeps, turn: Turn, waitSeconds: number, signal: AbortSignal): AsyncGenerator<WaitEvent> {
  if (isTurnOver(turn.status) || waitSeconds <= 0) {
    yield { kind: 'result', turn };
    return;
  }
  const startedMs = deps.clock.now().getTime();
  const wake = new Wakeup();
  let timeUp = false;
  let progressDue = false;
  const deadline = deps.clock.setTimer(waitSeconds * 1000, () => {
    timeUp = true;
    wake.wake();
  });
  const progress = setInterval(() => {
    progressDue = true;
    wake.wake();
  }, deps.progressIntervalMs ?? 5_000);
  const poll = setInterval(() => wake.wake(), deps.pollIntervalMs ?? 1_000);
  const stopListening = deps.signals.onEnded(turn.id, () => wake.wake());
  const onAbort = (): void => wake.wake();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      await wake.next();
      if (signal.aborted) return;
      // A look each second of a wait up to an hour long: not a span each in the wait call's trace.
      const current = (await outsideTrace(() => deps.turns.findTurn(turn.id))) ?? turn;
      if (isTurnOver(current.status) || timeUp) {
        yield { kind: 'result', turn: current };
        return;
      }
      if (progressDue) {
        progressDue = false;
        yield { kind: 'progress', seconds: Math.floor((deps.clock.now().getTime() - startedMs) / 1000) };
      }
    }
  } finally {
    deadline.cancel();
    clearInterval(progress);
    clearInterval(poll);
    stopListening();
    signal.removeEventListener('abort', onAbort);
  }
}

/** A level-triggered wake-up: wake() before next() is not lost. */
class Wakeup {
  #woken = false;
  #resolve: (() => void) | undefined;

  wake(): void {
    this.#woken = true;
    this.#resolve?.();
  }

  async next(): Promise<void> {
    if (!this.#woken) await new Promise<void>((resolve) => (this.#resolve = resolve));
    this.#woken = false;
    this.#resolve = undefined;
  }
}
