/**
 * The events this relay keeps for a paired relay's subscription (decisions.md, Replay on a paired relay): the
 * newest 500, for at most 7 days. Each kept event takes the next seq of its watch (1, 2, 3, … without gaps), so
 * whatever the watching relay never got between its cursor and the last seq was dropped, and is counted so.
 */

/** Events kept per subscription while the link is down. */
export const REMOTE_BUFFER_LIMIT = 500;
/** How long a kept event waits for the watching relay. */
export const REMOTE_BUFFER_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

export interface BufferLimits {
  limit: number;
  maxAgeMs: number;
}

export const DEFAULT_BUFFER_LIMITS: BufferLimits = { limit: REMOTE_BUFFER_LIMIT, maxAgeMs: REMOTE_BUFFER_MAX_AGE_MS };

/**
 * What a watch may still keep after its event `lastSeq` at `now`: seqs from `minSeq` on (the newest `limit`),
 * events that occurred at or after `since`. Everything else is dropped.
 */
export function keptBounds(lastSeq: number, now: Date, limits: BufferLimits = DEFAULT_BUFFER_LIMITS): { minSeq: number; since: Date } {
  return { minSeq: Math.max(lastSeq - limits.limit + 1, 1), since: new Date(now.getTime() - limits.maxAgeMs) };
}

/** An event as kept: its seq and when it happened (the rest rides along). */
export interface Sequenced {
  seq: number;
  occurredAt: Date;
}

/**
 * The answer to a fetch after `after`: the kept events past it that are still within the bounds at `now`
 * (oldest first), the cursor to ask after next, and how many events past `after` were dropped. A cursor ahead of
 * the watch (its kept events were lost) starts again from the watch's last seq, with nothing counted as dropped.
 */
export function readAfter<E extends Sequenced>(
  kept: readonly E[],
  after: number,
  lastSeq: number,
  now: Date,
  limits: BufferLimits = DEFAULT_BUFFER_LIMITS,
): { events: E[]; cursor: number; dropped: number } {
  if (after >= lastSeq) return { events: [], cursor: lastSeq, dropped: 0 };
  const { minSeq, since } = keptBounds(lastSeq, now, limits);
  const events = kept
    .filter((event) => event.seq > after && event.seq <= lastSeq && event.seq >= minSeq && event.occurredAt.getTime() >= since.getTime())
    .sort((a, b) => a.seq - b.seq);
  return { events, cursor: lastSeq, dropped: lastSeq - after - events.length };
}
