/**
 * The looks of every `wait` on an external session's own conversation in this gateway process (await-pending.ts):
 * one ListPendingMessages a second for all the sessions waited on, however many waits there are, rather than one
 * GetPendingMessages a second per wait (1,000 waits made 1,000 calls and about 600 PostgreSQL transactions a second;
 * bench/waits.bench.ts). A look that fails is made again at the next second; a look still running when the next is
 * due makes that one wait.
 */
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { outsideTrace } from '@relay/telemetry';
import type { SessionClient } from '../ports.ts';

export const PENDING_LOOK_MS = 1_000;

/** The most sessions the session service looks at in one ListPendingMessages. */
const SESSIONS_PER_LOOK = 1_000;

type Owner = Pick<SessionClient, 'listPendingMessages'>;

export class PendingLooks {
  /** The waits by session: each told what waits once a look finds something. */
  readonly #waits = new Map<string, Set<(pending: PendingMessages) => void>>();
  #timer: NodeJS.Timeout | undefined;
  #looking = false;

  constructor(private readonly sessions: Owner) {}

  /** What waits for `sessionId` once a look finds something; undefined once `signal` aborts first. */
  next(sessionId: string, signal: AbortSignal): Promise<PendingMessages | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const found = (pending: PendingMessages) => {
        signal.removeEventListener('abort', gone);
        resolve(pending);
      };
      const gone = () => {
        this.#forget(sessionId, found);
        resolve(undefined);
      };
      signal.addEventListener('abort', gone, { once: true });
      const waits = this.#waits.get(sessionId) ?? new Set();
      waits.add(found);
      this.#waits.set(sessionId, waits);
      // Outside the calling request's trace: the timer would carry it for as long as any wait goes on.
      this.#timer ??= outsideTrace(() => setInterval(() => void this.#look(), PENDING_LOOK_MS).unref());
    });
  }

  #forget(sessionId: string, found: (pending: PendingMessages) => void): void {
    const waits = this.#waits.get(sessionId);
    waits?.delete(found);
    if (waits?.size === 0) this.#waits.delete(sessionId);
    if (this.#waits.size > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #look(): Promise<void> {
    if (this.#looking) return;
    this.#looking = true;
    try {
      const sessionIds = [...this.#waits.keys()];
      for (let start = 0; start < sessionIds.length; start += SESSIONS_PER_LOOK) {
        const { pending } = await this.sessions.listPendingMessages({ sessionIds: sessionIds.slice(start, start + SESSIONS_PER_LOOK) });
        for (const [sessionId, messages] of Object.entries(pending)) {
          if (messages.count === 0) continue;
          for (const found of [...(this.#waits.get(sessionId) ?? [])]) {
            this.#forget(sessionId, found);
            found(messages);
          }
        }
      }
    } catch {
      // The next look asks again; each wait still ends at its own time.
    } finally {
      this.#looking = false;
    }
  }
}

const looksByOwner = new WeakMap<Owner, PendingLooks>();

/** The looks of every wait that asks `sessions`: one per owner, so one per gateway process. */
export function pendingLooksOf(sessions: Owner): PendingLooks {
  let looks = looksByOwner.get(sessions);
  if (looks === undefined) {
    looks = new PendingLooks(sessions);
    looksByOwner.set(sessions, looks);
  }
  return looks;
}
