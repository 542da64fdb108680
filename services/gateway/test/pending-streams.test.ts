// The GET /mcp streams of external sessions' clients (pending-stream.ts): watched with the waits (pending-looks.ts),
// a stream's first look PENDING_STREAM_FIRST_LOOK_MS after it opened, then a look when the session service's news
// names its session; a notification only when more messages wait than at the stream's last look, and nothing looked
// at or followed once every stream has closed. The news is a fake of our own port; timers are faked.
import type { ServerNotification } from '@modelcontextprotocol/server';
import { createLogger } from '@relay/telemetry';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { PENDING_STREAM_FIRST_LOOK_MS, PendingStreams } from '../src/adapters/http/pending-stream.ts';
import { SAFETY_LOOK_MS } from '../src/app/relay-tool/pending-looks.ts';
import { pendingSessions } from './fakes/fake-pending-sessions.ts';

const logger = createLogger({ name: 'pending-streams-test', level: 'silent' });

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

function client() {
  const heard: ServerNotification[] = [];
  return { heard, notify: async (notification: ServerNotification) => void heard.push(notification) };
}

it('announces what waits at a stream’s first look, then what the news brings, only what is new to each stream', async () => {
  const waiting = { editor: 0, ide: 1 };
  const sessions = pendingSessions(waiting);
  const streams = new PendingStreams({ sessions, logger });
  const [editor, ide, ideAgain] = [client(), client(), client()];
  const closed = new AbortController();
  streams.hold('editor', editor.notify, closed.signal);
  streams.hold('ide', ide.notify, new AbortController().signal);
  streams.hold('ide', ideAgain.notify, new AbortController().signal);

  // The news stream's look at all comes before the streams' first looks: nothing is announced yet.
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks).toEqual([['editor', 'ide']]);
  expect(ide.heard).toEqual([]);

  await vi.advanceTimersByTimeAsync(PENDING_STREAM_FIRST_LOOK_MS);
  expect(editor.heard).toEqual([]);
  expect(ide.heard).toEqual([
    {
      method: 'notifications/message',
      params: {
        level: 'info',
        logger: 'relay_tool',
        data: { message: expect.stringContaining('1 message waits'), pending: { count: 1, first: ['event 1'], read: expect.any(String) } },
      },
    },
  ]);
  expect(ideAgain.heard).toHaveLength(1);

  // News of the ide with nothing new: no notification; one more message for the editor: the editor's client hears it.
  sessions.tell({ sessionIds: ['ide'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(ide.heard).toHaveLength(1);
  waiting.editor = 2;
  sessions.tell({ sessionIds: ['editor'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(editor.heard).toHaveLength(1);
  expect(sessions.looks.at(-1)).toEqual(['editor']);

  closed.abort();
  sessions.tell({ sessionIds: ['editor', 'ide'] });
  await vi.advanceTimersByTimeAsync(0);
  expect(sessions.looks.at(-1)).toEqual(['ide']);
});

it('stops looking and following once every stream closed', async () => {
  const sessions = pendingSessions({ editor: 1 });
  const streams = new PendingStreams({ sessions, logger });
  const first = new AbortController();
  const later = new AbortController();
  streams.hold('editor', client().notify, first.signal);
  streams.hold('ide', client().notify, later.signal);
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_FIRST_LOOK_MS);
  const looked = sessions.looks.length;

  first.abort();
  later.abort();
  await vi.advanceTimersByTimeAsync(3 * SAFETY_LOOK_MS);
  expect(sessions.looks).toHaveLength(looked);
  expect(sessions.open).toBe(false);
  expect(vi.getTimerCount()).toBe(0);
});
