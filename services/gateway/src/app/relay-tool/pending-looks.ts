/**
 * What waits unread for the external sessions this gateway process watches: every `wait` on an external session's
 * own conversation (await-pending.ts) and every GET /mcp stream (pending-stream.ts). A look is one
 * ListPendingMessages for the sessions it is about, and it is made only when something may have changed
 * (docs/adr/0050): when the session service's news names a session watched here (a message was written into it,
 * messages-written.ts), for every session watched when the news says look at all (its stream began, the session
 * service's NATS came back), and every SAFETY_LOOK_MS for every session watched, for news that was lost. 1,000 waits
 * at rest cost one look in SAFETY_LOOK_MS, not one a second (bench/waits.bench.ts). A look that fails is made again
 * after LOOK_RETRY_MS; news that comes while a look runs makes another once it is done.
 */
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { outsideTrace } from '@relay/telemetry';
import { MessagesWritten } from '../messages-written.ts';
import type { SessionClient } from '../ports.ts';

/** How often every session watched is looked at, whatever the news said (real time). */
export const SAFETY_LOOK_MS = 15_000;

/** How long after a failed look it is made again (real time). */
export const LOOK_RETRY_MS = 1_000;

/** The most sessions the session service looks at in one ListPendingMessages. */
const SESSIONS_PER_LOOK = 1_000;

type Owner = Pick<SessionClient, 'listPendingMessages' | 'followMessagesWritten'>;

/** Told what a look found for its session: undefined when nothing waits (or the session is not external). */
export type Seen = (pending: PendingMessages | undefined) => void;

export class PendingLooks {
  /** Who watches each session. */
  readonly #watchers = new Map<string, Set<Seen>>();
  readonly #written: MessagesWritten;
  /** What the next look is about: every session watched, or these. */
  #all = false;
  readonly #due = new Set<string>();
  #looking = false;
  #unlisten: (() => void) | undefined;
  #safety: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;

  constructor(private readonly sessions: Owner) {
    this.#written = new MessagesWritten(sessions);
  }

  /** Tells `seen` what each look at `sessionId` finds, until the returned function is called. */
  watch(sessionId: string, seen: Seen): () => void {
    const watchers = this.#watchers.get(sessionId) ?? new Set();
    watchers.add(seen);
    this.#watchers.set(sessionId, watchers);
    // Outside the calling request's trace: the stream and the timer would carry it for as long as anything is watched.
    outsideTrace(() => {
      this.#unlisten ??= this.#written.listen((news) => this.lookSoon(news.sessionIds, news.lookAll));
      this.#safety ??= setInterval(() => this.lookSoon([], true), SAFETY_LOOK_MS).unref();
    });
    return () => this.#forget(sessionId, seen);
  }

  /** Looks at `sessionIds` (those watched), or at every session watched, as soon as the look running now is done. */
  lookSoon(sessionIds: readonly string[], all = false): void {
    if (all) this.#all = true;
    else for (const sessionId of sessionIds) if (this.#watchers.has(sessionId)) this.#due.add(sessionId);
    void this.#look();
  }

  #forget(sessionId: string, seen: Seen): void {
    const watchers = this.#watchers.get(sessionId);
    watchers?.delete(seen);
    if (watchers?.size === 0) {
      this.#watchers.delete(sessionId);
      this.#due.delete(sessionId);
    }
    if (this.#watchers.size > 0) return;
    this.#unlisten?.();
    this.#unlisten = undefined;
    clearInterval(this.#safety);
    this.#safety = undefined;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#all = false;
  }

  async #look(): Promise<void> {
    if (this.#looking) return;
    this.#looking = true;
    try {
      while (this.#all || this.#due.size > 0) {
        const sessionIds = this.#all ? [...this.#watchers.keys()] : [...this.#due];
        this.#all = false;
        this.#due.clear();
        try {
          await this.#lookAt(sessionIds);
        } catch {
          // Looked at again after LOOK_RETRY_MS (with whatever else comes meanwhile); each wait still ends at its own time.
          for (const sessionId of sessionIds) if (this.#watchers.has(sessionId)) this.#due.add(sessionId);
          this.#retry ??= outsideTrace(() =>
            setTimeout(() => {
              this.#retry = undefined;
              void this.#look();
            }, LOOK_RETRY_MS).unref(),
          );
          return;
        }
      }
    } finally {
      this.#looking = false;
    }
  }

  async #lookAt(sessionIds: readonly string[]): Promise<void> {
    for (let start = 0; start < sessionIds.length; start += SESSIONS_PER_LOOK) {
      const chunk = sessionIds.slice(start, start + SESSIONS_PER_LOOK);
      const { pending } = await this.sessions.listPendingMessages({ sessionIds: chunk });
      for (const sessionId of chunk) for (const seen of [...(this.#watchers.get(sessionId) ?? [])]) seen(pending[sessionId]);
    }
  }
}

const looksByOwner = new WeakMap<Owner, PendingLooks>();

/** The looks of every wait and stream that asks `sessions`: one per owner, so one per gateway process. */
export function pendingLooksOf(sessions: Owner): PendingLooks {
  let looks = looksByOwner.get(sessions);
  if (looks === undefined) {
    looks = new PendingLooks(sessions);
    looksByOwner.set(sessions, looks);
  }
  return looks;
}
