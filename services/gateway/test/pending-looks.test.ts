// The looks of every `wait` on an external session's own conversation (pending-looks.ts): one ListPendingMessages a
// second for all the sessions waited on, each session once; a wait is told when its session has messages, a wait
// whose caller went away is forgotten, and nothing is looked at once no wait is left. Timers are faked: nothing sleeps.
import type { ListPendingMessagesRequest, PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { PENDING_LOOK_MS, PendingLooks } from '../src/app/relay-tool/pending-looks.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
afterEach(() => vi.useRealTimers());

function sessionService(waiting: Record<string, number>) {
  const looks: string[][] = [];
  return {
    looks,
    async listPendingMessages({ sessionIds }: ListPendingMessagesRequest) {
      looks.push(sessionIds);
      const pending: Record<string, PendingMessages> = {};
      for (const id of sessionIds) if (id in waiting) pending[id] = { count: waiting[id]!, previews: [] };
      return { pending };
    },
  };
}

it('looks once a second for every session waited on, and tells its waits once messages wait', async () => {
  const waiting: Record<string, number> = { editor: 0, ide: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const found: string[] = [];
  const waits = ['editor', 'ide', 'ide'].map((sessionId) =>
    looks.next(sessionId, new AbortController().signal).then((pending) => found.push(`${sessionId} ${pending?.count}`)),
  );

  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  expect(sessions.looks).toEqual([['editor', 'ide']]);
  expect(found).toEqual([]);

  waiting.ide = 2;
  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  expect(found).toEqual(['ide 2', 'ide 2']);

  waiting.editor = 1;
  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  await Promise.all(waits);
  expect(found).toEqual(['ide 2', 'ide 2', 'editor 1']);
  expect(sessions.looks).toEqual([['editor', 'ide'], ['editor', 'ide'], ['editor']]);

  await vi.advanceTimersByTimeAsync(5 * PENDING_LOOK_MS);
  expect(sessions.looks).toHaveLength(3);
});

it('forgets a wait whose caller went away, and looks no more once none is left', async () => {
  const sessions = sessionService({ editor: 0 });
  const looks = new PendingLooks(sessions);
  const gone = new AbortController();
  const wait = looks.next('editor', gone.signal);
  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  expect(sessions.looks).toEqual([['editor']]);

  gone.abort();
  expect(await wait).toBeUndefined();
  await vi.advanceTimersByTimeAsync(5 * PENDING_LOOK_MS);
  expect(sessions.looks).toEqual([['editor']]);
  expect(await looks.next('editor', AbortSignal.abort())).toBeUndefined();
});

it('asks again at the next second when a look fails', async () => {
  let failing = true;
  const looks: string[][] = [];
  const pendingLooks = new PendingLooks({
    async listPendingMessages({ sessionIds }: ListPendingMessagesRequest) {
      looks.push(sessionIds);
      if (failing) throw new Error('the session service did not answer');
      return { pending: { editor: { count: 1, previews: [] } } };
    },
  });
  const wait = pendingLooks.next('editor', new AbortController().signal);
  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  failing = false;
  await vi.advanceTimersByTimeAsync(PENDING_LOOK_MS);
  expect((await wait)?.count).toBe(1);
  expect(looks).toEqual([['editor'], ['editor']]);
});
