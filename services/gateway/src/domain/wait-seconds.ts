/**
 * How long send, create_session and wait wait (spec, Waiting and what comes back): as long as the
 * agent asks in wait_seconds, up to the relay's Longest wait per tool call, which is also the
 * default. Asking for more is capped, and the result says so in a note.
 */
import { toolError } from './errors.ts';

export interface WaitPlan {
  waitSeconds: number;
  /** Set when the request was capped. */
  note?: string;
}

/** The wait for a call that asked for `requested` seconds on a relay whose longest wait is `maxWaitSeconds`. */
export function planWait(action: string, requested: number | undefined, maxWaitSeconds: number): WaitPlan {
  if (requested === undefined) return { waitSeconds: maxWaitSeconds };
  if (requested < 0) throw toolError('REMOTE_RELAY_INVALID_INPUT', `${action}: wait_seconds must be 0 or more; got ${requested}.`);
  if (requested <= maxWaitSeconds) return { waitSeconds: requested };
  return {
    waitSeconds: maxWaitSeconds,
    note: `wait_seconds ${requested} is more than this relay's longest wait per tool call (${maxWaitSeconds} s), so this call waited at most ${maxWaitSeconds} s.`,
  };
}
