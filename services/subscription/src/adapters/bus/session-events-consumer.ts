import { consume, waitForStream, type Bus, type BusMessage, type Consumer } from '@relay/bus';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import type { SessionActivityStore } from '../../app/ports.ts';
import { recordSessionEvent, recordSessionEvents } from '../../app/record-session-event.ts';
import { decodeSessionEvent } from './decode-session-event.ts';

/** The session service's stream, the subjects taken from it, and this service's durable consumer on it. */
export const SESSION_EVENTS = {
  stream: BusStreams.SESSION_EVENTS.name,
  durable: 'subscription-session-events',
  filterSubjects: BusStreams.SESSION_EVENTS.subjects,
} as const;


/**
 * Consumes the session events into the session-activity projection, once per message id, the messages that came
 * together in one transaction. The session service declares the stream; if this service starts first it waits for it.
 */
export async function startSessionEventsConsumer(bus: Bus, options: { store: SessionActivityStore; logger: Logger }): Promise<Consumer> {
  const { store, logger } = options;
  await waitForStream(bus, SESSION_EVENTS.stream, { logger });
  return consume(bus, {
    stream: SESSION_EVENTS.stream,
    durable: SESSION_EVENTS.durable,
    filterSubjects: [...SESSION_EVENTS.filterSubjects],
    logger,
    handler: (message) => handleSessionEvent(store, message, logger),
    // A message that cannot be decoded fails its batch, and is then terminated by the handler above while the
    // others go through.
    batchHandler: async (messages) => {
      const events = messages.flatMap((message) => {
        const event = decodeSessionEvent(message.subject, message.data);
        return event === undefined ? [] : [{ messageId: message.id, event }];
      });
      const applied = await recordSessionEvents(store, events);
      for (const { messageId } of events) if (!applied.has(messageId)) logger.debug({ messageId }, 'session event already processed');
    },
  });
}

/** Decodes one delivered message and applies it to the projection; a redelivery changes nothing. */
export async function handleSessionEvent(store: SessionActivityStore, message: BusMessage, logger: Logger): Promise<void> {
  const event = decodeSessionEvent(message.subject, message.data);
  if (event === undefined) return;
  const applied = await recordSessionEvent(store, message.id, event);
  if (!applied) logger.debug({ messageId: message.id, subject: message.subject }, 'session event already processed');
}
