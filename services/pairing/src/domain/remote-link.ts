/**
 * The link to a paired relay as one of this relay's remote subscriptions sees it, and what each fetch leads to
 * (spec, On a paired relay): a failed fetch reports link_lost once; the first fetch that answers after it
 * delivers what that relay kept as one replayed batch, then link_restored. While the link holds, each batch is
 * delivered as it comes.
 */

/** What one fetch got: the events after the cursor with the new cursor and the drop count, or no answer. */
export type FetchOutcome<E> = { ok: true; events: E[]; cursor: number; dropped: number } | { ok: false };

/** One thing to do, in order; the cursor and the link state are stored only after every step succeeded. */
export type LinkStep<E> =
  | { kind: 'ingest'; events: E[]; replayed: boolean; dropped: number }
  | { kind: 'report'; online: boolean };

/** The steps a fetch outcome leads to, and the link state and cursor to store once they are done. */
export function planFetch<E>(state: { online: boolean; cursor: number }, outcome: FetchOutcome<E>): { steps: LinkStep<E>[]; online: boolean; cursor: number } {
  if (!outcome.ok) {
    return { steps: state.online ? [{ kind: 'report', online: false }] : [], online: false, cursor: state.cursor };
  }
  const steps: LinkStep<E>[] = [];
  if (outcome.events.length > 0 || outcome.dropped > 0) {
    steps.push({ kind: 'ingest', events: outcome.events, replayed: !state.online, dropped: outcome.dropped });
  }
  if (!state.online) steps.push({ kind: 'report', online: true });
  return { steps, online: true, cursor: outcome.cursor };
}
