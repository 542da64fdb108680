/**
 * The news of messages written into external sessions, as this gateway follows it (docs/adr/0050): one
 * FollowMessagesWritten stream to the session service while anything here listens (a `wait` on an external session's
 * own conversation, a GET /mcp stream), whatever the number of listeners. A stream that ends or fails is opened again
 * after FOLLOW_RETRY_MS; each stream's first news says look at everything, so what was written while none was open
 * is looked for then. The gateway itself does not use NATS: the session service hears message_written there.
 */
import type { FollowMessagesWrittenResponse } from '@relay/proto/relay/session/v1/session_service';
import { outsideTrace } from '@relay/telemetry';
import type { SessionClient } from './ports.ts';

/** How long after a stream ended or failed it is opened again (real time). */
export const FOLLOW_RETRY_MS = 1_000;

export type WrittenListener = (news: FollowMessagesWrittenResponse) => void;

type Owner = Pick<SessionClient, 'followMessagesWritten'>;

export class MessagesWritten {
  readonly #listeners = new Set<WrittenListener>();
  /** Aborts the stream open now (and its retry): set while anything listens. */
  #following: AbortController | undefined;

  constructor(private readonly sessions: Owner) {}

  /** Calls `listener` with each news until the returned function is called. */
  listen(listener: WrittenListener): () => void {
    this.#listeners.add(listener);
    if (this.#following === undefined) {
      const following = new AbortController();
      this.#following = following;
      // Outside the first listener's trace: the stream would carry it for as long as anything listens.
      outsideTrace(() => void this.#follow(following.signal));
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      this.#following?.abort();
      this.#following = undefined;
    };
  }

  async #follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        for await (const news of this.sessions.followMessagesWritten({}, { signal })) {
          for (const listener of [...this.#listeners]) listener(news);
        }
      } catch {
        // The session service is away or restarting: the stream is opened again below, and its first news looks at all.
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, FOLLOW_RETRY_MS);
        timer.unref();
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}
