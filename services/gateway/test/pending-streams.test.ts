// The GET /mcp streams of external sessions' clients: one look for all of them every 2 s (one ListPendingMessages,
// each session once), a stream's first look a poll interval or more after it opened, a notification only when more
// messages wait than at the stream's last look, and no look at all once every stream has closed.
import type { ServerNotification } from '@modelcontextprotocol/server';
import type { ListPendingMessagesRequest, PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { createLogger } from '@relay/telemetry';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { PENDING_STREAM_POLL_MS, PendingStreams } from '../src/adapters/http/pending-stream.ts';

const logger = createLogger({ name: 'pending-streams-test', level: 'silent' });

beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

function sessionService(waiting: Record<string, number>) {
  const looks: string[][] = [];
  return {
    looks,
    async listPendingMessages({ sessionIds }: ListPendingMessagesRequest) {
      looks.push(sessionIds);
      const pending: Record<string, PendingMessages> = {};
      for (const id of sessionIds)
        if (id in waiting) pending[id] = { count: waiting[id]!, previews: Array.from({ length: Math.min(3, waiting[id]!) }, (_, i) => `event ${i + 1}`) };
      return { pending };
    },
  };
}

function client() {
  const heard: ServerNotification[] = [];
  return { heard, notify: async (notification: ServerNotification) => void heard.push(notification) };
}

it('looks for every open stream at once and announces only what is new to each', async () => {
  const waiting = { editor: 0, ide: 1 };
  const sessions = sessionService(waiting);
  const streams = new PendingStreams({ sessions, logger });
  const [editor, ide, ideAgain] = [client(), client(), client()];
  const closed = new AbortController();
  streams.hold('editor', editor.notify, closed.signal);
  streams.hold('ide', ide.notify, new AbortController().signal);
  streams.hold('ide', ideAgain.notify, new AbortController().signal);

  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS);
  expect(sessions.looks).toEqual([['editor', 'ide']]);
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

  // Nothing new: no notification; one more message for the editor: the editor's client hears it.
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS);
  expect(ide.heard).toHaveLength(1);
  waiting.editor = 2;
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS);
  expect(editor.heard).toHaveLength(1);
  expect(sessions.looks).toHaveLength(3);

  closed.abort();
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS);
  expect(sessions.looks.at(-1)).toEqual(['ide']);
});

it('looks at a new stream only a poll interval after it opened, and stops looking once every stream closed', async () => {
  const sessions = sessionService({ editor: 1 });
  const streams = new PendingStreams({ sessions, logger });
  const first = new AbortController();
  streams.hold('editor', client().notify, first.signal);
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS / 2);
  const later = new AbortController();
  const late = client();
  streams.hold('ide', late.notify, later.signal);
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS / 2);
  expect(sessions.looks).toEqual([['editor']]);
  await vi.advanceTimersByTimeAsync(PENDING_STREAM_POLL_MS);
  expect(sessions.looks).toEqual([['editor'], ['editor', 'ide']]);

  first.abort();
  later.abort();
  await vi.advanceTimersByTimeAsync(3 * PENDING_STREAM_POLL_MS);
  expect(sessions.looks).toHaveLength(2);
  expect(vi.getTimerCount()).toBe(0);
});
