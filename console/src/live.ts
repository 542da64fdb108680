// Live updates: one EventSource on /api/v1/events (with ?session= for the conversation on screen). Each update
// carries a digest per part; a part whose digest changed bumps its version, and the views reading that part read
// it again. EventSource reconnects by itself, so the page recovers after the gateway restarts.
import type { Schemas } from '@relay/user-api';
import { api } from './api.ts';

type LiveUpdate = Schemas['LiveUpdate'];

/** How long after a refused stream (a gateway answering 503 while it shuts down, say) the page tries again. */
const REOPEN_MS = 2000;

export type LivePart = 'sessions' | 'inbox' | 'session';

type Listener = () => void;

interface LiveState {
  versions: Record<LivePart, number>;
  inboxCount: number | undefined;
  connected: boolean;
  /** Why the page stopped updating, when the relay said (too many pages open). */
  notice: string | undefined;
}

const state: LiveState = { versions: { sessions: 0, inbox: 0, session: 0 }, inboxCount: undefined, connected: false, notice: undefined };
const listeners = new Set<Listener>();
let source: EventSource | undefined;
let sessionId: string | undefined;
let last: LiveUpdate | undefined;
let reopen: ReturnType<typeof setTimeout> | undefined;

export function liveState(): LiveState {
  return state;
}

export function subscribeLive(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(): void {
  for (const listener of listeners) listener();
}

/** Everything is read again (after a write, the page does not wait for the next update). */
export function refreshAll(): void {
  state.versions = { sessions: state.versions.sessions + 1, inbox: state.versions.inbox + 1, session: state.versions.session + 1 };
  changed();
}

/** Opens (or re-opens for another conversation) the stream; `watch` is the conversation on screen, if any. */
export function startLive(watch: string | undefined): void {
  if (source && watch === sessionId) return;
  stopLive();
  sessionId = watch;
  last = undefined;
  source = new EventSource(watch ? `/api/v1/events?session=${encodeURIComponent(watch)}` : '/api/v1/events');
  source.addEventListener('open', () => {
    state.connected = true;
    changed();
  });
  const opened = source;
  source.addEventListener('error', () => {
    state.connected = false;
    changed();
    // EventSource retries a dropped connection itself, but gives up on an answer that is not a stream. Then the
    // page checks the sign-in (a 401 signs the page out) and opens the stream again.
    if (opened.readyState !== EventSource.CLOSED || source !== opened) return;
    clearTimeout(reopen);
    reopen = setTimeout(() => {
      if (source !== opened) return;
      const again = () => {
        if (source !== opened) return;
        source = undefined;
        startLive(watch);
      };
      // A 401 signs the page out (api.ts tells the app), which stops the stream for good.
      api.get('/api/v1/me').then(again, (error: { status?: number }) => {
        if (error.status !== 401) again();
      });
    }, REOPEN_MS);
  });
  source.addEventListener('update', (event) => {
    const update = JSON.parse((event as MessageEvent<string>).data) as LiveUpdate;
    const versions = { ...state.versions };
    // The first update after a (re)connect reads everything: something may have changed while the stream was down.
    if (!last || last.sessions !== update.sessions) versions.sessions += 1;
    if (!last || last.inbox !== update.inbox) versions.inbox += 1;
    if (!last || last.session !== update.session) versions.session += 1;
    last = update;
    state.versions = versions;
    state.inboxCount = update.inboxCount;
    state.connected = true;
    changed();
  });
  source.addEventListener('replaced', (event) => {
    stopLive();
    state.connected = false;
    state.notice = (JSON.parse((event as MessageEvent<string>).data) as { message: string }).message;
    changed();
  });
  source.addEventListener('signed-out', () => {
    stopLive();
    location.assign('/sign-in');
  });
}

export function stopLive(): void {
  clearTimeout(reopen);
  source?.close();
  source = undefined;
  last = undefined;
}
