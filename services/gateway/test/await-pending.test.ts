// wait on an external session's own conversation (await-pending.ts): a look at once, then the shared looks once a
// second, a progress line every 10 s, and the end of the wait when it runs out or the agent goes away. Timers and
// performance.now are faked: nothing sleeps.
import type { ListPendingMessagesRequest, PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import { awaitPending } from '../src/app/relay-tool/await-pending.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

/** An external caller's context whose conversation has `waiting.count` messages unread; what it was told of progress. */
function contextOf(waiting: { count: number }, signal = new AbortController().signal) {
  const progress: string[] = [];
  const looked: string[][] = [];
  const pendingOf = (): PendingMessages | undefined => (waiting.count === 0 ? undefined : { count: waiting.count, previews: [] });
  const sessions = {
    async getPendingMessages() {
      return { pending: pendingOf() };
    },
    async listPendingMessages({ sessionIds }: ListPendingMessagesRequest) {
      looked.push(sessionIds);
      const pending = pendingOf();
      return { pending: pending === undefined ? {} : { me: pending } };
    },
  };
  const context = {
    caller: { userId: 'u1', sessionId: 'me', external: true },
    sessions,
    signal,
    progress: async (line: string) => void progress.push(line),
  } as unknown as ActionContext;
  return { context, progress, looked };
}

it('answers at once what already waits, without a shared look', async () => {
  const { context, looked } = contextOf({ count: 2 });
  expect(await awaitPending(context, 60)).toEqual({ count: 2, previews: [] });
  expect(looked).toEqual([]);
});

it('tells the agent every 10 s that it still waits, and ends with nothing when the wait runs out', async () => {
  const { context, progress, looked } = contextOf({ count: 0 });
  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void awaitPending(context, 25).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(10_000);
  expect(progress).toEqual(['waiting for a message in your own conversation (10 s of 25 s)']);
  await vi.advanceTimersByTimeAsync(14_000);
  expect(answered).toBe('not yet');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(answered).toBeUndefined();
  expect(progress).toHaveLength(2);
  expect(looked.length).toBeGreaterThanOrEqual(20);
  expect(new Set(looked.flat())).toEqual(new Set(['me']));
});

it('answers what arrives at the next look', async () => {
  const waiting = { count: 0 };
  const { context } = contextOf(waiting);
  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void awaitPending(context, 60).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(12_000);
  expect(answered).toBe('not yet');
  waiting.count = 1;
  await vi.advanceTimersByTimeAsync(1_000);
  expect(answered).toEqual({ count: 1, previews: [] });
});

it('ends with nothing once the agent goes away', async () => {
  const gone = new AbortController();
  const { context } = contextOf({ count: 0 }, gone.signal);
  const waiting = awaitPending(context, 60);
  await vi.advanceTimersByTimeAsync(3_000);
  gone.abort();
  expect(await waiting).toBeUndefined();
});
