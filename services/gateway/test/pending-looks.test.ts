// The looks of every wait and GET /mcp stream on external sessions (pending-looks.ts, docs/adr/0050): a look only at
// the sessions the session service's news names (a message was written into them), at every session watched when
// the news says look at all (its stream began, NATS came back) and every SAFETY_LOOK_MS (news that was lost), one
// ListPendingMessages each, each session once; a look that fails is made again; nothing is looked at and nothing
// followed once no wait is left. The news stream is a fake of our own port, and timers are faked: nothing sleeps.
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FOLLOW_RETRY_MS } from '../src/app/messages-written.ts';
import { LOOK_RETRY_MS, PendingLooks, SAFETY_LOOK_MS } from '../src/app/relay-tool/pending-looks.ts';
import { pendingSessions as sessionService } from './fakes/fake-pending-sessions.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

it('looks at a session when the news names it, and at every session when the news says look at all', async () => {
  const waiting: Record<string, number> = { editor: 0, ide: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const found: string[] = [];
  const waits = ['editor', 'ide', 'ide'].map((sessionId) =>
    looks.next(sessionId, new AbortController().signal).then((pending) => found.push(`${sessionId} ${pending?.count}`)),
  );
  // The stream's first news: a look at everything watched.
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.streams).toBe(1);
  expect(sessions.looks).toEqual([['editor', 'ide']]);

  // A message written into the ide's conversation: a look at it alone, and its two waits are told.
  waiting.ide = 2;
  sessions.tell({ sessionIds: ['ide', 'someone-else'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks.at(-1)).toEqual(['ide']);
  expect(found).toEqual(['ide 2', 'ide 2']);

  // NATS came back on the session service: what was written meanwhile is found by a look at all.
  waiting.editor = 1;
  sessions.tell({ lookAll: true });
  await Promise.all(waits);
  expect(found).toEqual(['ide 2', 'ide 2', 'editor 1']);
  expect(sessions.looks).toEqual([['editor', 'ide'], ['ide'], ['editor']]);

  // No wait is left: no look, no stream.
  await vi.advanceTimersByTimeAsync(3 * SAFETY_LOOK_MS);
  expect(sessions.looks).toHaveLength(3);
  expect(sessions.open).toBe(false);
});

it('finds a message whose news was lost at the safety look', async () => {
  const waiting: Record<string, number> = { editor: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  let answered: PendingMessages | undefined | 'not yet' = 'not yet';
  void looks.next('editor', new AbortController().signal).then((pending) => (answered = pending));
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks).toEqual([['editor']]);

  // Written, but its news never came: nothing is looked at until the safety look.
  waiting.editor = 1;
  await vi.advanceTimersByTimeAsync(SAFETY_LOOK_MS - 1);
  expect(sessions.looks).toEqual([['editor']]);
  expect(answered).toBe('not yet');
  await vi.advanceTimersByTimeAsync(1);
  expect(sessions.looks).toEqual([['editor'], ['editor']]);
  expect(answered).toEqual({ count: 1, previews: ['event 1'] });
});

it('follows again after the stream failed, and looks at everything when it is back', async () => {
  const waiting: Record<string, number> = { editor: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const wait = looks.next('editor', new AbortController().signal);
  await vi.advanceTimersByTimeAsync(0);
  sessions.fail();
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.open).toBe(false);

  waiting.editor = 3;
  await vi.advanceTimersByTimeAsync(FOLLOW_RETRY_MS);
  expect(sessions.streams).toBe(2);
  expect((await wait)?.count).toBe(3);
  expect(sessions.looks).toEqual([['editor'], ['editor']]);
});

it('forgets a wait whose caller went away, and stops following once none is left', async () => {
  const sessions = sessionService({ editor: 0 });
  const looks = new PendingLooks(sessions);
  const gone = new AbortController();
  const wait = looks.next('editor', gone.signal);
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.open).toBe(true);

  gone.abort();
  expect(await wait).toBeUndefined();
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.open).toBe(false);
  await vi.advanceTimersByTimeAsync(3 * SAFETY_LOOK_MS);
  expect(sessions.looks).toEqual([['editor']]);
  expect(vi.getTimerCount()).toBe(0);
  expect(await looks.next('editor', AbortSignal.abort())).toBeUndefined();
});

it('looks again after LOOK_RETRY_MS when a look fails', async () => {
  const sessions = sessionService({ editor: 1 });
  sessions.failing = true;
  const looks = new PendingLooks(sessions);
  const wait = looks.next('editor', new AbortController().signal);
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks).toEqual([['editor']]);
  sessions.failing = false;
  await vi.advanceTimersByTimeAsync(LOOK_RETRY_MS);
  expect((await wait)?.count).toBe(1);
  expect(sessions.looks).toEqual([['editor'], ['editor']]);
});
