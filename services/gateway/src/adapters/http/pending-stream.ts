/**
 * What an external session's client hears on its open GET /mcp stream: an MCP logging notification each time
 * a message is written into its conversation that its agent has not read (a wake-up, an answer to its ask, a
 * schedule firing). The gateway looks for every stream it holds at once, every 2 s (one ListPendingMessages however
 * many streams are open), so any gateway replica can hold any stream with nothing shared; the messages themselves
 * stay in the conversation, read with read_session or wait.
 */
import type { ServerNotification } from '@modelcontextprotocol/server';
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { outsideTrace, type Logger } from '@relay/telemetry';
import type { SessionClient } from '../../app/ports.ts';
import { pendingNoteOf } from '../../domain/pending-note.ts';

export const PENDING_STREAM_POLL_MS = 2_000;

/** The most sessions the session service looks at in one ListPendingMessages. */
const SESSIONS_PER_LOOK = 1_000;

interface HeldStream {
  sessionId: string;
  notify: (notification: ServerNotification) => Promise<void>;
  /** The count of the last look: a notification goes out when more wait. */
  announced: number;
  openedAtMs: number;
}

/** The GET /mcp streams this gateway holds, and the looks for them all. */
export class PendingStreams {
  readonly #streams = new Set<HeldStream>();
  #timer: NodeJS.Timeout | undefined;
  #looking = false;

  constructor(private readonly deps: { sessions: Pick<SessionClient, 'listPendingMessages'>; logger: Logger }) {}

  /**
   * Sends a notification whenever more messages wait for `sessionId` than at the last look, until `signal` aborts.
   * A stream's first look comes a poll interval or more after it opened (a notification before it would be dropped).
   */
  hold(sessionId: string, notify: HeldStream['notify'], signal: AbortSignal): void {
    if (signal.aborted) return;
    const stream: HeldStream = { sessionId, notify, announced: 0, openedAtMs: performance.now() };
    this.#streams.add(stream);
    signal.addEventListener('abort', () => this.#release(stream), { once: true });
    // Outside the GET request's trace: the timer would carry it for as long as any stream stays open.
    this.#timer ??= outsideTrace(() => setInterval(() => void this.#look(), PENDING_STREAM_POLL_MS).unref());
  }

  #release(stream: HeldStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look for every stream open long enough; a look still running when the next is due makes that one wait. */
  async #look(): Promise<void> {
    if (this.#looking) return;
    this.#looking = true;
    try {
      const now = performance.now();
      const due = [...this.#streams].filter((stream) => now - stream.openedAtMs >= PENDING_STREAM_POLL_MS);
      const sessionIds = [...new Set(due.map((stream) => stream.sessionId))];
      const pending = new Map<string, PendingMessages>();
      for (let start = 0; start < sessionIds.length; start += SESSIONS_PER_LOOK) {
        const answer = await this.deps.sessions.listPendingMessages({ sessionIds: sessionIds.slice(start, start + SESSIONS_PER_LOOK) });
        for (const [sessionId, messages] of Object.entries(answer.pending)) pending.set(sessionId, messages);
      }
      await Promise.all(due.filter((stream) => this.#streams.has(stream)).map((stream) => this.#announce(stream, pending.get(stream.sessionId))));
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'the pending streams could not look');
    } finally {
      this.#looking = false;
    }
  }

  async #announce(stream: HeldStream, pending: PendingMessages | undefined): Promise<void> {
    const count = pending?.count ?? 0;
    const note = pendingNoteOf(stream.sessionId, pending);
    const announced = stream.announced;
    stream.announced = count;
    if (count <= announced || note === undefined) return;
    try {
      await stream.notify({ method: 'notifications/message', params: { level: 'info', logger: 'relay_tool', data: { message: note.read, pending: note } } });
    } catch (error) {
      this.deps.logger.debug({ err: error, sessionId: stream.sessionId }, 'the pending stream could not announce');
    }
  }
}
