/**
 * wait on an external session's own conversation (decisions.md, External sessions): returns as soon as a
 * message waits unread for its agent (a wake-up, an answer to its ask, a schedule firing), or when the wait
 * runs out. It watches its session with every other wait of this gateway (pending-looks.ts: a look when a message
 * is written into it, and a safety look now and then) from before its own first look (one GetPendingMessages), so
 * that a message written after that look is looked for, and tells the agent every 10 s that it still waits.
 */
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import type { ActionContext } from './action-context.ts';
import { pendingLooksOf } from './pending-looks.ts';

export const PENDING_PROGRESS_MS = 10_000;

/** What waits for the caller's agent once something does; undefined when `waitSeconds` ran out first or the agent went away. */
export async function awaitPending(context: ActionContext, waitSeconds: number): Promise<PendingMessages | undefined> {
  const { caller, sessions, signal } = context;
  const startedAt = performance.now();
  // What a look finds for the session, or undefined once the agent went away.
  let settle: (pending: PendingMessages | undefined) => void = () => {};
  const found = new Promise<PendingMessages | undefined>((resolve) => (settle = resolve));
  const unwatch = pendingLooksOf(sessions).watch(caller.sessionId, (pending) => {
    if (pending !== undefined && pending.count > 0) settle(pending);
  });
  const gone = () => settle(undefined);
  signal.addEventListener('abort', gone, { once: true });
  try {
    const { pending } = await sessions.getPendingMessages({ sessionId: caller.sessionId });
    if (pending !== undefined && pending.count > 0) return pending;
    for (;;) {
      const left = waitSeconds * 1000 - (performance.now() - startedAt);
      if (signal.aborted || left <= 0) return undefined;
      // Until the next progress line is due, or the wait's end.
      let timer: NodeJS.Timeout | undefined;
      const roundOver = new Promise<'round over'>((resolve) => (timer = setTimeout(() => resolve('round over'), Math.min(PENDING_PROGRESS_MS, left))));
      const round = await Promise.race([found, roundOver]);
      clearTimeout(timer);
      if (round !== 'round over') return round;
      const waited = performance.now() - startedAt;
      if (signal.aborted || waited >= waitSeconds * 1000) return undefined;
      await context.progress(`waiting for a message in your own conversation (${Math.round(waited / 1000)} s of ${waitSeconds} s)`);
    }
  } finally {
    unwatch();
    signal.removeEventListener('abort', gone);
  }
}
