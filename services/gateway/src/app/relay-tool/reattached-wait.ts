/**
 * A wait at a person's pace over a server-streaming call (AwaitCard, Wait): what is waited for is the other
 * service's durable state, not the call's, so a call the transport ends (a recycled connection, a restarting or
 * stopping service) is made again for the time left, until the answer comes or the time is up (decisions.md,
 * Waiting for the person).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SystemClock, type Clock } from '@relay/clock';
import { isTransportFailure, reattachDelayMs } from '@relay/rpc';

export interface ReattachedWait<E, R> {
  /** Makes the call for `waitSeconds` (relay clock; 0 answers what stands now). */
  open(waitSeconds: number, signal: AbortSignal): AsyncIterable<E>;
  /** The answer an event carries, if it does. */
  answerOf(event: E): R | undefined;
  /** Called for every other event (a keep-alive) with the relay-clock seconds waited since the first call. */
  progress(waitedSeconds: number): Promise<void>;
  /** How long to wait in all, relay clock. */
  waitSeconds: number;
  /**
   * performance.now() by which the wait answers whatever stands then, real time: its caller's client drops a call
   * held longer (ActionContext.answerBy).
   */
  answerBy?: number;
  signal: AbortSignal;
  clock?: Clock;
}

/** The answer; undefined only when `signal` aborted (the caller went away) first. */
export async function reattachedWait<E, R>(wait: ReattachedWait<E, R>): Promise<R | undefined> {
  const clock = wait.clock ?? new SystemClock();
  const startedMs = clock.now().getTime();
  const deadlineMs = startedMs + wait.waitSeconds * 1000;
  // Once the caller's bound is reached, the round in progress ends and one more asks what stands (waitSeconds 0).
  const bound = new AbortController();
  const boundTimer = wait.answerBy === undefined ? undefined : setTimeout(() => bound.abort(), Math.max(0, wait.answerBy - performance.now()));
  let failures = 0;
  try {
    for (;;) {
      const left = bound.signal.aborted ? 0 : Math.max(0, Math.ceil((deadlineMs - clock.now().getTime()) / 1000));
      const round = left === 0 ? wait.signal : AbortSignal.any([wait.signal, bound.signal]);
      try {
        for await (const event of wait.open(left, round)) {
          const answer = wait.answerOf(event);
          if (answer !== undefined) return answer;
          failures = 0;
          await wait.progress(Math.floor((clock.now().getTime() - startedMs) / 1000));
        }
      } catch (error) {
        if (wait.signal.aborted) return undefined;
        if (!round.aborted && !isTransportFailure(error)) throw error;
      }
      if (wait.signal.aborted) return undefined;
      if (round.aborted) continue;
      // Ended without its answer: the transport failed, or the service stopped its waits (they end on shutdown).
      failures += 1;
      try {
        await sleep(reattachDelayMs(failures), undefined, { signal: wait.signal });
      } catch {
        return undefined;
      }
    }
  } finally {
    clearTimeout(boundTimer);
  }
}
