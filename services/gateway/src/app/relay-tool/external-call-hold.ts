/**
 * An external session's call is its running turn (docs/relay-tool.md, An external session): while it is in flight the
 * session service holds it, so list_sessions, read_session and the console show the session working. The hold is
 * a lease the session service sets; it is renewed here while the call goes on, so one this gateway can no longer
 * renew (a crash) lapses by itself.
 *
 * Each call is held once (HoldExternalCall, which checks the session); its renewals then go out with every other call
 * of this gateway process whose renewal is due, in one RenewExternalCalls a second (1,000 held calls made one
 * HoldExternalCall each every third of the lease, 150–300 PostgreSQL transactions a second: bench/waits.bench.ts).
 * A batch that fails is sent again at the next second; a call whose hold is gone (it lapsed while this gateway could
 * not reach the session service) is held again with HoldExternalCall.
 */
import { randomUUID } from 'node:crypto';
import { SystemClock, type Clock, type Timer } from '@relay/clock';
import { outsideTrace, type Logger } from '@relay/telemetry';
import type { SessionClient } from '../ports.ts';

/** Relay time before a hold that failed is tried again. */
const HOLD_RETRY_MS = 2_000;

/** Renewals per lease: a renewal late by two thirds of the lease still lands in time. */
const RENEWALS_PER_LEASE = 3;

/** Relay time between two looks for the renewals due: each look that finds some sends them in one RenewExternalCalls. */
export const RENEW_TICK_MS = 1_000;

/** The most calls one RenewExternalCalls renews (the session service's bound). */
const CALLS_PER_RENEWAL = 1_000;

/**
 * A call is held once it has been in flight this long (real time): most calls answer sooner, and nobody could
 * have seen them working, so they cost the session service nothing.
 */
export const HOLD_AFTER_MS = 1_000;

type Owner = Pick<SessionClient, 'holdExternalCall' | 'renewExternalCalls' | 'releaseExternalCall'>;

/** A call held by this process: when its renewal is due (relay time, ms), and how to hold it anew once its hold is gone. */
interface HeldCall {
  sessionId: string;
  callId: string;
  renewAt: number;
  holdAgain: () => void;
}

/** The held calls of one gateway process and their renewals. */
export class ExternalCallHolds {
  /** By call id. */
  readonly #held = new Map<string, HeldCall>();
  #tick: Timer | undefined;
  #renewing = false;

  constructor(
    private readonly sessions: Owner,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Holds a call of `sessionId`'s agent from its first HOLD_AFTER_MS on; the returned function ends the hold once the
   * call has ended. A hold that fails costs the working state, never the call.
   */
  hold(sessionId: string): () => Promise<void> {
    const callId = randomUUID();
    let ended = false;
    let retry: Timer | undefined;
    let holding: Promise<void> | undefined;
    const holdAgain = () => {
      if (!ended) holding = hold();
    };
    const hold = (): Promise<void> =>
      this.sessions.holdExternalCall({ sessionId, callId }).then(
        ({ leaseMs }) => {
          if (ended || leaseMs <= 0) return;
          this.#keep({ sessionId, callId, renewAt: this.#renewAt(leaseMs), holdAgain });
        },
        (error: unknown) => {
          this.logger.warn({ err: error, sessionId }, 'an external call could not be held as the session’s running turn; trying again');
          // The hold is the session service's state: one a recycled connection or a restarting service failed is set again.
          if (!ended) retry = this.clock.setTimer(HOLD_RETRY_MS, holdAgain);
        },
      );
    const start = setTimeout(holdAgain, HOLD_AFTER_MS);
    start.unref();
    return async () => {
      ended = true;
      clearTimeout(start);
      retry?.cancel();
      this.#forget(callId);
      if (holding === undefined) return;
      await holding;
      // A renewal in flight may land after this: it renews only a hold still there, so it never sets this one again.
      await this.sessions.releaseExternalCall({ sessionId, callId }).catch((error: unknown) => {
        this.logger.warn({ err: error, sessionId }, 'an external call’s hold could not be released; it lapses with its lease');
      });
    };
  }

  #renewAt(leaseMs: number): number {
    return this.clock.now().getTime() + leaseMs / RENEWALS_PER_LEASE;
  }

  #keep(call: HeldCall): void {
    this.#held.set(call.callId, call);
    // Outside the calling request's trace: the timer would carry it for as long as any call is held.
    this.#tick ??= outsideTrace(() => this.clock.setTimer(RENEW_TICK_MS, () => this.#look()));
  }

  #forget(callId: string): void {
    this.#held.delete(callId);
    if (this.#held.size > 0) return;
    this.#tick?.cancel();
    this.#tick = undefined;
  }

  /** Every tick: the renewals due go out (unless the last batch is still out), and the next tick is set. */
  #look(): void {
    this.#tick = this.#held.size > 0 ? this.clock.setTimer(RENEW_TICK_MS, () => this.#look()) : undefined;
    if (this.#renewing) return;
    const now = this.clock.now().getTime();
    const due = [...this.#held.values()].filter((call) => call.renewAt <= now);
    if (due.length === 0) return;
    this.#renewing = true;
    void this.#renew(due).finally(() => {
      this.#renewing = false;
    });
  }

  async #renew(due: HeldCall[]): Promise<void> {
    try {
      for (let start = 0; start < due.length; start += CALLS_PER_RENEWAL) {
        const batch = due.slice(start, start + CALLS_PER_RENEWAL);
        const { leaseMs, gone } = await this.sessions.renewExternalCalls({
          calls: batch.map(({ sessionId, callId }) => ({ sessionId, callId })),
        });
        const lapsed = new Set(gone.map((call) => call.callId));
        for (const call of batch) {
          if (this.#held.get(call.callId) !== call) continue; // ended meanwhile
          if (lapsed.has(call.callId) || leaseMs <= 0) {
            this.#forget(call.callId);
            if (leaseMs > 0) call.holdAgain();
          } else {
            call.renewAt = this.#renewAt(leaseMs);
          }
        }
      }
    } catch (error) {
      // The calls stay due: the next tick sends them again, well within their leases.
      this.logger.warn({ err: error, calls: due.length }, 'external calls’ holds could not be renewed; trying again');
    }
  }
}

const holdsByOwner = new WeakMap<Owner, ExternalCallHolds>();

/**
 * Holds a call of `sessionId`'s agent (ExternalCallHolds.hold) with the holds of every call that asks `sessions`:
 * one set per owner, so one per gateway process. The renewals run on the relay's clock, the one the lease is measured on.
 */
export function holdExternalCall(sessions: Owner, sessionId: string, logger: Logger, clock: Clock = new SystemClock()): () => Promise<void> {
  let holds = holdsByOwner.get(sessions);
  if (holds === undefined) {
    holds = new ExternalCallHolds(sessions, logger, clock);
    holdsByOwner.set(sessions, holds);
  }
  return holds.hold(sessionId);
}
