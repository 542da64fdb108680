/**
 * A session service as the pending looks see it (pending-looks.ts): ListPendingMessages over conversations with
 * `waiting` messages unread, and FollowMessagesWritten whose news the test sends (`tell`), fails (`fail`) or ends
 * when the looks stop following. A conversation's previews are `event 1` to `event 3`. Its first news on each stream says look at all, as the session service's does.
 */
import type { FollowMessagesWrittenResponse, ListPendingMessagesRequest, PendingMessages } from '@relay/proto/relay/session/v1/session_service';

export function pendingSessions(waiting: Record<string, number>) {
  const looks: string[][] = [];
  let streams = 0;
  let tell: ((news: FollowMessagesWrittenResponse) => void) | undefined;
  let end: ((error?: Error) => void) | undefined;
  const service = {
    looks,
    failing: false,
    /** Streams opened so far. */
    get streams() {
      return streams;
    },
    /** News on the open stream; throws when none is open. */
    tell(news: Partial<FollowMessagesWrittenResponse>) {
      if (tell === undefined) throw new Error('no stream is open');
      tell({ sessionIds: [], lookAll: false, ...news });
    },
    /** The open stream fails, as when the session service's replica stops. */
    fail() {
      end?.(new Error('the session service went away'));
    },
    get open() {
      return tell !== undefined;
    },
    async listPendingMessages({ sessionIds }: ListPendingMessagesRequest) {
      looks.push(sessionIds);
      if (service.failing) throw new Error('the session service did not answer');
      const pending: Record<string, PendingMessages> = {};
      for (const id of sessionIds)
        if (id in waiting) pending[id] = { count: waiting[id]!, previews: Array.from({ length: Math.min(3, waiting[id]!) }, (_, i) => `event ${i + 1}`) };
      return { pending };
    },
    async *followMessagesWritten(_request: object, options?: { signal?: AbortSignal }): AsyncGenerator<FollowMessagesWrittenResponse> {
      streams++;
      const queue: FollowMessagesWrittenResponse[] = [{ sessionIds: [], lookAll: true }];
      let failure: Error | undefined;
      let wake: (() => void) | undefined;
      tell = (news) => {
        queue.push(news);
        wake?.();
      };
      end = (error) => {
        failure = error;
        wake?.();
      };
      const stop = () => wake?.();
      options?.signal?.addEventListener('abort', stop);
      try {
        for (;;) {
          if (options?.signal?.aborted) return;
          if (failure !== undefined) throw failure;
          const news = queue.shift();
          if (news !== undefined) yield news;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        tell = undefined;
        end = undefined;
        options?.signal?.removeEventListener('abort', stop);
      }
    },
  };
  return service;
}
