/**
 * How the transaction gate and the pool's statement line bound a wait by the deadline of the call it serves
 * (docs/adr/0049, Deadlines). Work still waiting for the database when its caller gives up is work for nobody that
 * delays the calls still waited on; and a refusal that reaches the gateway after its own deadline is no answer, the
 * agent sees REMOTE_RELAY_INTERNAL. So such work is given up a margin before the deadline, with
 * REMOTE_RELAY_CALL_LIMIT: retryable, nothing of it run. The deadline comes from the service's wiring
 * (@relay/rpc's callDeadline); this package knows nothing of gRPC.
 */
import { appError, type AppError } from '@relay/errors';

/** The deadline (ms since the epoch) of the call the current work serves; undefined when no caller waits on it. */
export type CallDeadline = () => number | undefined;

/**
 * How long before its call's deadline work stops waiting. In that second the refusal goes back through the handler,
 * the service's gRPC answer and the gateway's result to the agent, on a machine loaded enough to have queued it; a
 * transaction begun later might commit after the caller gave up, its answer lost.
 */
export const DEADLINE_MARGIN_MS = 1_000;

/** How long work may wait from `now`: `bound` when no call waits on it, else at most up to the margin before its deadline. */
export function waitLeft(deadline: CallDeadline | undefined, bound: number, now = Date.now()): number {
  const at = deadline?.();
  return at === undefined ? bound : Math.min(bound, at - DEADLINE_MARGIN_MS - now);
}

/** The refusal of a statement given up before its call's deadline: retryable, never run. */
export function tooLate(): AppError {
  return appError(
    'REMOTE_RELAY_CALL_LIMIT',
    'This relay has too many calls waiting for its database to answer this one in time. Nothing was changed; make the same call again in a few seconds.',
  );
}
