/**
 * FollowMessagesWritten (docs/adr/0050): a gateway's waits on external conversations and its GET /mcp streams look
 * at a session when a message was written into it, rather than at all of theirs every second. This replica hears
 * relay.session.v1.message_written on NATS (every replica hears every one) and passes the session ids on to the
 * gateways following here. A nudge only makes a look prompt: the messages table stays the truth, a follower is told
 * to look at everything when it may have missed some (the stream began, NATS came back), and the gateways still look
 * at everything now and then.
 */

/** What a follower is told: these sessions had a message written, or look at every session (something may be missed). */
export interface WrittenNews {
  sessionIds: string[];
  lookAll: boolean;
}

/**
 * The most session ids a follower that has not taken its news yet keeps: past it they become one look_all, so a
 * slow gateway costs this replica a bounded set, not one entry per message written.
 */
export const MAX_UNSENT_SESSION_IDS = 1_000;

type Listener = (news: { sessionId: string } | 'lookAll') => void;

/** The in-process nudges: a message was written into a session (as NATS said), or NATS came back (look at all). */
export class WrittenSignals {
  readonly #listeners = new Set<Listener>();

  /** Calls `listener` with each nudge; returns the unsubscribe. */
  listen(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A message was written into the external session `sessionId`. */
  written(sessionId: string): void {
    for (const listener of this.#listeners) listener({ sessionId });
  }

  /** What was published while this replica did not listen was not heard: every follower looks at everything. */
  lookAll(): void {
    for (const listener of this.#listeners) listener('lookAll');
  }
}

/**
 * The news for one follower until `signal` aborts: first a look_all (it listens from now on, so what was written before
 * is for that look), then the sessions written into since the last news, several at once when they came together.
 */
export async function* followMessagesWritten(signals: WrittenSignals, signal: AbortSignal): AsyncGenerator<WrittenNews> {
  let unsent = new Set<string>();
  let lookAll = true;
  let wake: (() => void) | undefined;
  const stop = signals.listen((news) => {
    if (news === 'lookAll' || unsent.size >= MAX_UNSENT_SESSION_IDS) {
      lookAll = true;
      unsent.clear();
    } else if (!lookAll) {
      unsent.add(news.sessionId);
    }
    wake?.();
  });
  const aborted = () => wake?.();
  signal.addEventListener('abort', aborted, { once: true });
  try {
    while (!signal.aborted) {
      if (lookAll || unsent.size > 0) {
        const news: WrittenNews = { sessionIds: lookAll ? [] : [...unsent], lookAll };
        unsent = new Set();
        lookAll = false;
        yield news;
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stop();
    signal.removeEventListener('abort', aborted);
  }
}
