/**
 * What an external session's client hears on its open GET /mcp stream: an MCP logging notification each time
 * a message is written into its conversation that its agent has not read (a wake-up, an answer to its ask, a
 * schedule firing). The streams this gateway holds are watched with its waits (pending-looks.ts: a look when the
 * session service says a message was written into the session, and a safety look now and then), so any gateway
 * replica can hold any stream with nothing shared; the messages themselves stay in the conversation, read with
 * read_session or wait.
 */
import type { ServerNotification } from '@modelcontextprotocol/server';
import type { PendingMessages } from '@relay/proto/relay/session/v1/session_service';
import { outsideTrace, type Logger } from '@relay/telemetry';
import type { SessionClient } from '../../app/ports.ts';
import { pendingLooksOf } from '../../app/relay-tool/pending-looks.ts';
import { pendingNoteOf } from '../../domain/pending-note.ts';

/** How long after a stream opened it is first looked at: a notification before then would be dropped (real time). */
export const PENDING_STREAM_FIRST_LOOK_MS = 2_000;

interface HeldStream {
  sessionId: string;
  notify: (notification: ServerNotification) => Promise<void>;
  /** The count of the last look: a notification goes out when more wait. */
  announced: number;
  /** Set at the stream's first look, PENDING_STREAM_FIRST_LOOK_MS after it opened: looks before then leave it be. */
  due: boolean;
}

/** The GET /mcp streams this gateway holds. */
export class PendingStreams {
  constructor(private readonly deps: { sessions: Pick<SessionClient, 'listPendingMessages' | 'followMessagesWritten'>; logger: Logger }) {}

  /**
   * Sends a notification whenever more messages wait for `sessionId` than at the last look, until `signal` aborts.
   * A stream's first look comes PENDING_STREAM_FIRST_LOOK_MS after it opened; looks before then leave it be.
   */
  hold(sessionId: string, notify: HeldStream['notify'], signal: AbortSignal): void {
    if (signal.aborted) return;
    const stream: HeldStream = { sessionId, notify, announced: 0, due: false };
    const looks = pendingLooksOf(this.deps.sessions);
    const unwatch = looks.watch(sessionId, (pending) => void this.#announce(stream, pending));
    // Outside the GET request's trace: the timer would carry it.
    const firstLook = outsideTrace(() =>
      setTimeout(() => {
        stream.due = true;
        looks.lookSoon([sessionId]);
      }, PENDING_STREAM_FIRST_LOOK_MS).unref(),
    );
    signal.addEventListener(
      'abort',
      () => {
        unwatch();
        clearTimeout(firstLook);
      },
      { once: true },
    );
  }

  async #announce(stream: HeldStream, pending: PendingMessages | undefined): Promise<void> {
    if (!stream.due) return;
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
