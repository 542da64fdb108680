/**
 * The consumers that feed subscriptions: session events (turn ends, questions, archives) and question events
 * (answers to a conversation's asks), taken in batches (one transaction each) and stored once per watcher; the
 * planner takes it from there.
 */
import { consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { BusStreams } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import { ingestWatchEvent, ingestWatchEvents, type IngestedBatch } from '../../app/ingest-watch-events.ts';
import type { WatchDeps } from '../../app/ports.ts';
import { decodeWatchEvent, WATCHED_QUESTION_EVENTS, WATCHED_SESSION_EVENTS, type WatchedContract } from './decode-watch-event.ts';

// One filter each (the nats-server here, before 2.10, takes no list of them): the session stream's wildcard, the rest
// of it acked unread.
export const WATCH_CONSUMERS = [
  { durable: 'subscription-watch-session-events', contracts: WATCHED_SESSION_EVENTS, wholeStream: BusStreams.SESSION_EVENTS },
  { durable: 'subscription-watch-question-events', contracts: WATCHED_QUESTION_EVENTS },
] as const;

/**
 * Starts both consumers in the background, each once its stream is declared (its publisher may start after
 * this service). stop() ends those that started and gives up waiting for the others.
 */
export function startWatchEventsConsumers(
  bus: Bus,
  options: { watch: WatchDeps; clock: Clock; logger: Logger; onIngested: (batch: IngestedBatch) => void },
): Consumer {
  const { watch, clock, logger } = options;
  const stopping = new AbortController();
  const started = WATCH_CONSUMERS.map(async (spec): Promise<Consumer | undefined> => {
    const contracts: readonly WatchedContract[] = spec.contracts;
    if (!(await waitForStream(bus, spec.contracts[0].stream, { logger, signal: stopping.signal }))) return undefined;
    return consume(bus, {
      durable: spec.durable,
      contracts,
      ...('wholeStream' in spec ? { wholeStream: spec.wholeStream } : {}),
      logger,
      handler: async (message) => {
        options.onIngested(await ingestWatchEvent(watch, spec.durable, message.id, decodeWatchEvent(message), clock.now()));
      },
      // The messages that came together in one transaction; a message that cannot be decoded fails its batch, and is
      // then terminated by the handler above while the others go through.
      batchHandler: async (messages) => {
        const items = messages.map((message) => ({ messageId: message.id, input: decodeWatchEvent(message), traceParent: message.traceParent ?? null }));
        options.onIngested(await ingestWatchEvents(watch, spec.durable, items, clock.now()));
      },
    });
  });
  for (const consumer of started) consumer.catch((error: unknown) => logger.error({ err: error }, 'a watch-event consumer did not start'));
  return {
    async stop() {
      stopping.abort();
      for (const consumer of await Promise.allSettled(started)) if (consumer.status === 'fulfilled') await consumer.value?.stop();
    },
  };
}
