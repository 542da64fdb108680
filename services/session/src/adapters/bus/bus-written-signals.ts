import type { Bus } from '@relay/bus';
import type { Logger } from '@relay/telemetry';
import { SessionEvents } from '@relay/proto/relay/bus-contracts';
import type { WrittenSignals } from '../../app/external/messages-written.ts';

/**
 * Feeds WrittenSignals from the bus: a plain (core NATS) subscription on message_written, which every replica hears
 * as the outbox publishes it, and a look at everything each time the connection comes back, since what was published
 * while it was away was not heard. Nothing is acknowledged: the gateways that follow also look at every session they
 * wait on now and then (docs/adr/0050).
 */
export function listenForWrittenSignals(bus: Bus, signals: WrittenSignals, logger: Logger): { stop(): void } {
  const subscription = bus.nc.subscribe(SessionEvents.MESSAGE_WRITTEN.subject, {
    callback: (error, message) => {
      if (error) return logger.warn({ err: error }, 'message_written subscription failed');
      try {
        const { sessionId } = SessionEvents.MESSAGE_WRITTEN.codec.fromJSON(message.json());
        if (sessionId !== '') signals.written(sessionId);
      } catch (cause) {
        logger.warn({ err: cause }, 'message_written message is not JSON');
      }
    },
  });
  // The status stream ends when the connection closes.
  void (async () => {
    for await (const status of bus.nc.status()) if (status.type === 'reconnect') signals.lookAll();
  })().catch((error: unknown) => logger.warn({ err: error }, 'NATS status stream ended with an error'));
  return { stop: () => subscription.unsubscribe() };
}
