// A follower's news (messages-written.ts): the sessions written into since its last news, each once, and a look at
// all in place of more than MAX_UNSENT_SESSION_IDS sessions that a slow follower has not taken yet.
import { expect, it } from 'vitest';
import { followMessagesWritten, MAX_UNSENT_SESSION_IDS, WrittenSignals } from '../src/app/external/messages-written.ts';

it('gathers the sessions written into while the follower was busy, each once', async () => {
  const signals = new WrittenSignals();
  const following = new AbortController();
  const news = followMessagesWritten(signals, following.signal);
  expect((await news.next()).value).toEqual({ sessionIds: [], lookAll: true });

  const next = news.next();
  signals.written('editor');
  signals.written('ide');
  signals.written('editor');
  expect((await next).value).toEqual({ sessionIds: ['editor', 'ide'], lookAll: false });
  const later = news.next();
  signals.written('ide');
  expect((await later).value).toEqual({ sessionIds: ['ide'], lookAll: false });

  following.abort();
  expect((await news.next()).done).toBe(true);
  signals.written('editor');
});

it('keeps at most MAX_UNSENT_SESSION_IDS sessions for a follower that does not take its news: past them, a look at all', async () => {
  const signals = new WrittenSignals();
  const following = new AbortController();
  const news = followMessagesWritten(signals, following.signal);
  expect((await news.next()).value?.lookAll).toBe(true);
  // The follower has not taken its news yet while these come.
  for (let i = 0; i <= MAX_UNSENT_SESSION_IDS; i++) signals.written(`s${i}`);
  expect((await news.next()).value).toEqual({ sessionIds: [], lookAll: true });
  signals.written('editor');
  expect((await news.next()).value).toEqual({ sessionIds: ['editor'], lookAll: false });
  following.abort();
  await news.next();
});
