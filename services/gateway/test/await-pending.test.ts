// wait on an external session's own conversation (await-pending.ts): a look at once, then the shared looks (a look
// when the session service's news names the session, a safety look now and then), a progress line every 10 s, and
// the end of the wait when it runs out or the agent goes away. The news is a fake of our own port; timers and
// performance.now are faked: nothing sleeps.
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ActionContext } from '../src/app/relay-tool/action-context.ts';
import { awaitPending } from '../src/app/relay-tool/await-pending.ts';
import { SAFETY_LOOK_MS } from '../src/app/relay-tool/pending-looks.ts';
import { pendingSessions } from './fakes/fake-pending-sessions.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

/**
 * An external caller's context whose conversation has `waiting.me` messages unread, and what it was told of
 * progress; `firstLook` runs as its first look answers (a message written meanwhile, say).
 */
function contextOf(
  waiting: { me: number },
  signal = new AbortController().signal,
  firstLook: (service: ReturnType<typeof pendingSessions>) => Promise<void> | void = () => {},
) {
  const progress: string[] = [];
  const service = pendingSessions(waiting);
  const sessions = Object.assign(service, {
    async getPendingMessages({ sessionId }: { sessionId: string }) {
      if (sessionId !== 'me') return { pending: undefined };
      const count = waiting.me;
      await firstLook(service);
      return { pending: count === 0 ? undefined : ({ count, previews: [] } satisfies PendingMessages) };
    },
  });
  const context = {
    caller: { userId: 'u1', sessionId: 'me', external: true },
    sessions,
    signal,
    progress: async (line: string) => void progress.push(line),
  } as unknown as ActionContext;
  return { context, progress, service };
}

it('answers at once what already waits', async () => {
  const { context, service } = contextOf({ me: 2 });
  expect(await awaitPending(context, 60)).toEqual({ count: 2, previews: [] });
  await vi.advanceTimersByTimeAsync(0);
  expect(service.open).toBe(false);
});

it('tells the agent every 10 s that it still waits, and ends with nothing when the wait runs out, looking only at the safety looks', async () => {
  const { context, progress, service } = contextOf({ me: 0 });
  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void awaitPending(context, 25).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(10_000);
  expect(progress).toEqual(['waiting for a message in your own conversation (10 s of 25 s)']);
  await vi.advanceTimersByTimeAsync(14_000);
  expect(answered).toBe('not yet');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(answered).toBeUndefined();
  expect(progress).toHaveLength(2);
  // The look at all when the news began, and one safety look in 25 s.
  expect(SAFETY_LOOK_MS).toBeLessThan(25_000);
  expect(service.looks).toEqual([['me'], ['me']]);
  expect(service.open).toBe(false);
});

it('answers what arrives as soon as the news names its session', async () => {
  const waiting = { me: 0 };
  const { context, service } = contextOf(waiting);
  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void awaitPending(context, 60).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(12_000);
  expect(answered).toBe('not yet');
  waiting.me = 1;
  service.tell({ sessionIds: ['me'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(answered).toEqual({ count: 1, previews: ['event 1'] });
});

it('answers a message written while its first look was under way, whose news came before that look answered', async () => {
  const waiting = { me: 0 };
  // The news comes 10 ms before the first look answers.
  const { context } = contextOf(waiting, undefined, async (service) => {
    waiting.me = 1;
    service.tell({ sessionIds: ['me'] });
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
  // The news stream is open before the wait's first look (another wait of this gateway opened it).
  const other = new AbortController();
  void awaitPending({ ...context, caller: { ...context.caller, sessionId: 'other' }, signal: other.signal }, 60);
  await vi.advanceTimersByTimeAsync(0);

  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void awaitPending(context, 60).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(10);
  expect(answered).toEqual({ count: 1, previews: ['event 1'] });
  other.abort();
});

it('ends with nothing once the agent goes away', async () => {
  const gone = new AbortController();
  const { context } = contextOf({ me: 0 }, gone.signal);
  const waiting = awaitPending(context, 60);
  await vi.advanceTimersByTimeAsync(3_000);
  gone.abort();
  expect(await waiting).toBeUndefined();
});
