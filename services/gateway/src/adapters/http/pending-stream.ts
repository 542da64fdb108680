/**
 * What an external session's client hears on its open GET /mcp stream: an MCP logging notification each time
 * a message is written into its conversation that its agent has not read (a wake-up, an answer to its ask, a
 * schedule firing). The stream looks every 2 s (one GetPendingMessages), so any gateway replica can hold it with
 * nothing shared; the messages themselves stay in the conversation, read with read_session or wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { outsideTrace, type Logger } from '@relay/telemetry';
import type { SessionClient } from '../../app/ports.ts';
import { pendingNoteOf } from '../../domain/pending-note.ts';

export const PENDING_STREAM_POLL_MS = 2_000;

/** Sends a notification whenever more messages wait than when it last looked, until `signal` aborts. */
export async function announcePending(
  sessionId: string,
  deps: { sessions: SessionClient; logger: Logger },
  notify: (notification: ServerNotification) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  let announced = 0;
  while (!signal.aborted) {
    try {
      await sleep(PENDING_STREAM_POLL_MS, undefined, { signal });
    } catch {
      return;
    }
    try {
      // A look every 2 s of a stream held for hours: not a span each in the GET request's trace.
      const { pending } = await outsideTrace(() => deps.sessions.getPendingMessages({ sessionId }));
      const count = pending?.count ?? 0;
      const note = pendingNoteOf(sessionId, pending);
      if (count > announced && note !== undefined) {
        await notify({ method: 'notifications/message', params: { level: 'info', logger: 'relay_tool', data: { message: note.read, pending: note } } });
      }
      announced = count;
    } catch (error) {
      if (signal.aborted) return;
      deps.logger.debug({ err: error, sessionId }, 'the pending stream could not look or announce');
    }
  }
}
