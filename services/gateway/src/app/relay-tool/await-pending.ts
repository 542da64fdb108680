/**
 * wait on an external session's own conversation (decisions.md, External sessions): returns as soon as a
 * message waits unread for its agent (a wake-up, an answer to its ask, a schedule firing), or when the wait
 * runs out. It looks every second (one GetPendingMessages) and tells the agent every 10 s that it still waits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import type { ActionContext } from './action-context.ts';

export const PENDING_POLL_MS = 1_000;
export const PENDING_PROGRESS_MS = 10_000;

/** What waits for the caller's agent once something does; undefined when `waitSeconds` ran out first or the agent went away. */
export async function awaitPending(context: ActionContext, waitSeconds: number): Promise<PendingMessages | undefined> {
  const { caller, sessions, signal } = context;
  const startedAt = performance.now();
  let progressAt = startedAt + PENDING_PROGRESS_MS;
  for (;;) {
    const { pending } = await sessions.getPendingMessages({ sessionId: caller.sessionId });
    if (pending !== undefined && pending.count > 0) return pending;
    const now = performance.now();
    if (signal.aborted || now - startedAt >= waitSeconds * 1000) return undefined;
    if (now >= progressAt) {
      progressAt = now + PENDING_PROGRESS_MS;
      await context.progress(`waiting for a message in your own conversation (${Math.round((now - startedAt) / 1000)} s of ${waitSeconds} s)`);
    }
    try {
      await sleep(Math.min(PENDING_POLL_MS, waitSeconds * 1000 - (now - startedAt)), undefined, { signal });
    } catch {
      return undefined;
    }
  }
}
