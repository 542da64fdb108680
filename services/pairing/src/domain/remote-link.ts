/**
 * The link to a paired relay as one of this relay's remote subscriptions sees it, and what each fetch leads to
 * (spec, On a paired relay; decisions.md, Replays after a gap): a failed fetch reports link_lost once; the first
 * fetch that answers after it delivers what that relay kept as one replayed batch, then link_restored. While the
 * link holds, each batch is delivered as it comes, unless it shows a gap all the same: that relay dropped events
 * we never got, or this relay was away (stopped, or its fetches stalled) while that relay kept events for it. Such
 * a batch is a replay too, between a link_lost at the last contact and a link_restored now.
 */

/** What one fetch got: the events after the cursor with the new cursor and the drop count, or no answer. */
export type FetchOutcome<E> = { ok: true; events: E[]; cursor: number; dropped: number } | { ok: false };

/** One thing to do, in order; the cursor and the link state are stored only after every step succeeded. */
export type LinkStep<E> =
  | { kind: 'ingest'; events: E[]; replayed: boolean; dropped: number }
  /** `at` when the change happened before the fetch (a gap found on return); otherwise it happens now. */
  | { kind: 'report'; online: boolean; at?: Date };

/**
 * A fetch later than this past its due time (relay time), and later than AWAY_AFTER_INTERVALS fetch intervals,
 * means this relay was away: nothing fetched, nothing reported, while the other relay kept events for it. A pass
 * that is merely slow (a busy machine, a slow database) stays well inside both.
 */
export const AWAY_AFTER_MS = 20_000;
export const AWAY_AFTER_INTERVALS = 10;

/** The link as stored, with what is known of the last contact: when the fetch before answered, and whether this relay was away since. */
export interface LinkState {
  online: boolean;
  cursor: number;
  lastContactAt?: Date;
  away?: boolean;
}

/**
 * When a subscription due at `dueAt` (the last fetch settled `intervalMs` before it) is fetched at `now`: the last
 * contact, and whether this relay was away since (the fetch is later than AWAY_AFTER_MS and AWAY_AFTER_INTERVALS
 * intervals).
 */
export function sinceLastFetch(dueAt: Date | undefined, intervalMs: number, now: Date): { lastContactAt?: Date; away: boolean } {
  if (dueAt === undefined) return { away: false };
  const late = now.getTime() - dueAt.getTime();
  return { lastContactAt: new Date(dueAt.getTime() - intervalMs), away: late > Math.max(AWAY_AFTER_MS, AWAY_AFTER_INTERVALS * intervalMs) };
}

/** The steps a fetch outcome leads to, and the link state and cursor to store once they are done. */
export function planFetch<E>(state: LinkState, outcome: FetchOutcome<E>): { steps: LinkStep<E>[]; online: boolean; cursor: number } {
  if (!outcome.ok) {
    return { steps: state.online ? [{ kind: 'report', online: false }] : [], online: false, cursor: state.cursor };
  }
  const steps: LinkStep<E>[] = [];
  const came = outcome.events.length > 0 || outcome.dropped > 0;
  // A gap the stored state does not show: events lost there, or kept there while this relay was away.
  const hiddenGap = state.online && (outcome.dropped > 0 || (state.away === true && came));
  if (hiddenGap) steps.push(state.lastContactAt === undefined ? { kind: 'report', online: false } : { kind: 'report', online: false, at: state.lastContactAt });
  if (came) steps.push({ kind: 'ingest', events: outcome.events, replayed: !state.online || hiddenGap, dropped: outcome.dropped });
  if (!state.online || hiddenGap) steps.push({ kind: 'report', online: true });
  return { steps, online: true, cursor: outcome.cursor };
}
