// The looks of every wait and GET /mcp stream on external sessions (pending-looks.ts, docs/adr/0050): a look only at
// the sessions the session service's news names (a message was written into them), at every session watched when
// the news says look at all (its stream began, NATS came back) and every SAFETY_LOOK_MS (news that was lost), one
// ListPendingMessages each, each session once; a look that fails is made again; nothing is looked at and nothing
// followed once no watch is left. The news stream is a fake of our own port, and timers are faked: nothing sleeps.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FOLLOW_RETRY_MS } from '../src/app/messages-written.ts';
import { LOOK_RETRY_MS, PendingLooks, SAFETY_LOOK_MS } from '../src/app/relay-tool/pending-looks.ts';
import { pendingSessions as sessionService } from './fakes/fake-pending-sessions.ts';

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] }));
afterEach(() => vi.useRealTimers());

/** Watches `sessionId`: what each look told it (`<session> <count>`, 0 when nothing waits), and the unwatch. */
function watching(looks: PendingLooks, sessionId: string, told: string[]): () => void {
  return looks.watch(sessionId, (pending) => told.push(`${sessionId} ${pending?.count ?? 0}`));
}

it('looks at a session when the news names it, and at every session when the news says look at all', async () => {
  const waiting: Record<string, number> = { editor: 0, ide: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const told: string[] = [];
  const unwatch = ['editor', 'ide', 'ide'].map((sessionId) => watching(looks, sessionId, told));
  // The stream's first news: a look at everything watched, each session once.
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.streams).toBe(1);
  expect(sessions.looks).toEqual([['editor', 'ide']]);
  expect(told).toEqual(['editor 0', 'ide 0', 'ide 0']);

  // A message written into the ide's conversation: a look at it alone (the other session is not watched here).
  waiting.ide = 2;
  sessions.tell({ sessionIds: ['ide', 'someone-else'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks.at(-1)).toEqual(['ide']);
  expect(told.slice(3)).toEqual(['ide 2', 'ide 2']);

  // NATS came back on the session service: what was written meanwhile is found by a look at all.
  waiting.editor = 1;
  sessions.tell({ lookAll: true });
  await vi.advanceTimersByTimeAsync(0);
  expect(told.slice(5)).toEqual(['editor 1', 'ide 2', 'ide 2']);
  expect(sessions.looks).toEqual([['editor', 'ide'], ['ide'], ['editor', 'ide']]);

  // No watch is left: no look, no stream, no timer.
  for (const end of unwatch) end();
  await vi.advanceTimersByTimeAsync(3 * SAFETY_LOOK_MS);
  expect(sessions.looks).toHaveLength(3);
  expect(sessions.open).toBe(false);
  expect(vi.getTimerCount()).toBe(0);
});

it('finds a message whose news was lost at the safety look', async () => {
  const waiting: Record<string, number> = { editor: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const told: string[] = [];
  watching(looks, 'editor', told);
  await vi.advanceTimersByTimeAsync(0);
  expect(told).toEqual(['editor 0']);

  // Written, but its news never came: nothing is looked at until the safety look.
  waiting.editor = 1;
  await vi.advanceTimersByTimeAsync(SAFETY_LOOK_MS - 1);
  expect(sessions.looks).toEqual([['editor']]);
  await vi.advanceTimersByTimeAsync(1);
  expect(sessions.looks).toEqual([['editor'], ['editor']]);
  expect(told).toEqual(['editor 0', 'editor 1']);
});

it('follows again after the stream failed, and looks at everything when it is back', async () => {
  const waiting: Record<string, number> = { editor: 0 };
  const sessions = sessionService(waiting);
  const looks = new PendingLooks(sessions);
  const told: string[] = [];
  watching(looks, 'editor', told);
  await vi.advanceTimersByTimeAsync(0);
  sessions.fail();
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.open).toBe(false);

  waiting.editor = 3;
  await vi.advanceTimersByTimeAsync(FOLLOW_RETRY_MS);
  expect(sessions.streams).toBe(2);
  expect(told).toEqual(['editor 0', 'editor 3']);
});

it('forgets a watch that ended, news of its session included', async () => {
  const sessions = sessionService({ editor: 1, ide: 1 });
  const looks = new PendingLooks(sessions);
  const told: string[] = [];
  const unwatch = watching(looks, 'editor', told);
  watching(looks, 'ide', told);
  await vi.advanceTimersByTimeAsync(0);
  unwatch();
  sessions.tell({ sessionIds: ['editor'] });
  await vi.advanceTimersByTimeAsync(SAFETY_LOOK_MS);
  expect(sessions.looks).toEqual([['editor', 'ide'], ['ide']]);
  expect(told).toEqual(['editor 1', 'ide 1', 'ide 1']);
});

it('looks again after LOOK_RETRY_MS when a look fails', async () => {
  const sessions = sessionService({ editor: 1 });
  sessions.failing = true;
  const looks = new PendingLooks(sessions);
  const told: string[] = [];
  watching(looks, 'editor', told);
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks).toEqual([['editor']]);
  expect(told).toEqual([]);
  sessions.failing = false;
  await vi.advanceTimersByTimeAsync(LOOK_RETRY_MS);
  expect(sessions.looks).toEqual([['editor'], ['editor']]);
  expect(told).toEqual(['editor 1']);
});
