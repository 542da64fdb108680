/**
 * The 30-second coalescing window: the first new event released for a watcher opens it, and every
 * event released within it goes out in one message when it closes. An event that goes at once (an
 * urgent one, or held ones at their release: they have waited already) takes whatever waits in the
 * open window with it.
 */

/** Where a released event goes: the send time, the window it joined, and the window afterwards. */
export type Coalesced = {
  sendAt: Date;
  /** The window the event opened or joined; null for an event that goes at once. */
  joinedWindowClosingAt: Date | null;
  /** The open window an event that goes at once takes along; null when none was open. */
  takesWindowClosingAt: Date | null;
  /** The watcher's open window afterwards (null: none). */
  windowClosesAt: Date | null;
};

/** Places an event released at `releasedAt` into the watcher's coalescing window, or sends it `atOnce`. */
export function coalesceRelease(windowClosesAt: Date | null, releasedAt: Date, atOnce: boolean, coalesceMs: number): Coalesced {
  const open = windowClosesAt !== null && windowClosesAt.getTime() > releasedAt.getTime() ? windowClosesAt : null;
  if (atOnce) return { sendAt: releasedAt, joinedWindowClosingAt: null, takesWindowClosingAt: open, windowClosesAt: null };
  const closesAt = open ?? new Date(releasedAt.getTime() + coalesceMs);
  return { sendAt: closesAt, joinedWindowClosingAt: closesAt, takesWindowClosingAt: null, windowClosesAt: closesAt };
}
