import { consume, waitForStream, type Bus, type Consumer, type Delivered } from '@relay/bus';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import { activeTraceParent, type Logger } from '@relay/telemetry';
import type { SessionActivityStore } from '../../app/ports.ts';
import { recordSessionEvent, recordSessionEvents } from '../../app/record-session-event.ts';
import { decodeSessionEvent, PROJECTED_EVENTS } from './decode-session-event.ts';

/** This service's durable consumer of the session service's events for the projection. */
export const SESSION_EVENTS = {
  durable: 'subscription-session-events',
  contracts: PROJECTED_EVENTS,
  // One filter, the whole stream: the NATS server here predates filter_subjects (2.10); the rest is acked unread.
  wholeStream: BusStreams.SESSION_EVENTS,
} as const;

/** A session event as the consumer hands it over. */
type SessionEventMessage = Delivered<(typeof SESSION_EVENTS.contracts)[number]>;

/**
 * Consumes the session events into the session-activity projection, once per message id, the messages that came
 * together in one transaction. The session service declares the stream; if this service starts first it waits for it.
 */
export async function startSessionEventsConsumer(bus: Bus, options: { store: SessionActivityStore; logger: Logger }): Promise<Consumer> {
  const { store, logger } = options;
  await waitForStream(bus, SESSION_EVENTS.wholeStream.name, { logger });
  return consume(bus, {
    durable: SESSION_EVENTS.durable,
    contracts: SESSION_EVENTS.contracts,
    wholeStream: SESSION_EVENTS.wholeStream,
    logger,
    handler: (message) => handleSessionEvent(store, message, logger),
    // A message that cannot be decoded fails its batch, and is then terminated by the handler above while the
    // others go through.
    batchHandler: async (messages) => {
      // Each event keeps the trace it came in with (its consumer span's): all_idle links to the event that ended a run.
      const events = messages.map((message) => ({
        messageId: message.id,
        event: { ...decodeSessionEvent(message), traceParent: message.traceParent ?? null },
      }));
      const applied = await recordSessionEvents(store, events);
      for (const { messageId } of events) if (!applied.has(messageId)) logger.debug({ messageId }, 'session event already processed');
    },
  });
}

/** Decodes one delivered message and applies it to the projection; a redelivery changes nothing. */
export async function handleSessionEvent(store: SessionActivityStore, message: SessionEventMessage, logger: Logger): Promise<void> {
  const applied = await recordSessionEvent(store, message.id, { ...decodeSessionEvent(message), traceParent: activeTraceParent() });
  if (!applied) logger.debug({ messageId: message.id, subject: message.subject }, 'session event already processed');
}
