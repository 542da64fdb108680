/**
 * An external session's call is its running turn (docs/relay-tool.md, An external session): while it is in flight the
 * session service holds it, so list_sessions, read_session and the console show the session working. The hold is
 * a lease the session service sets; it is renewed here while the call goes on, so one this gateway can no longer
 * renew (a crash) lapses by itself.
 */
import { randomUUID } from 'node:crypto';
import { SystemClock, type Clock, type Timer } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { SessionClient } from '../ports.ts';

/** Relay time before a hold that failed is tried again. */
const HOLD_RETRY_MS = 2_000;

/** Renewals per lease: a renewal late by two thirds of the lease still lands in time. */
const RENEWALS_PER_LEASE = 3;

/**
 * A call is held once it has been in flight this long (real time): most calls answer sooner, and nobody could
 * have seen them working, so they cost the session service nothing.
 */
export const HOLD_AFTER_MS = 1_000;

/**
 * Holds a call of `sessionId`'s agent from its first HOLD_AFTER_MS on; the returned function ends the hold once the
 * call has ended. The renewals run on the relay's clock, the one the lease is measured on. A hold that fails costs
 * the working state, never the call.
 */
export function holdExternalCall(
  sessions: Pick<SessionClient, 'holdExternalCall' | 'releaseExternalCall'>,
  sessionId: string,
  logger: Logger,
  clock: Clock = new SystemClock(),
): () => Promise<void> {
  const callId = randomUUID();
  let ended = false;
  let timer: Timer | undefined;
  const hold = (): Promise<void> =>
    sessions.holdExternalCall({ sessionId, callId }).then(
      ({ leaseMs }) => {
        if (ended || leaseMs <= 0) return;
        timer = clock.setTimer(leaseMs / RENEWALS_PER_LEASE, () => {
          holding = hold();
        });
      },
      (error: unknown) => {
        logger.warn({ err: error, sessionId }, 'an external call could not be held as the session’s running turn; trying again');
        // The hold is the session service's state: one a recycled connection or a restarting service failed is set again.
        if (!ended) {
          timer = clock.setTimer(HOLD_RETRY_MS, () => {
            holding = hold();
          });
        }
      },
    );
  let holding: Promise<void> | undefined;
  const start = setTimeout(() => {
    holding = hold();
  }, HOLD_AFTER_MS);
  start.unref();
  return async () => {
    ended = true;
    clearTimeout(start);
    timer?.cancel();
    if (holding === undefined) return;
    await holding;
    await sessions.releaseExternalCall({ sessionId, callId }).catch((error: unknown) => {
      logger.warn({ err: error, sessionId }, 'an external call’s hold could not be released; it lapses with its lease');
    });
  };
}
