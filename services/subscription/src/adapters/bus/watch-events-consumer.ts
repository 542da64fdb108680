/**
 * The consumers that feed subscriptions: session events (turn ends, questions, archives) and question events
 * (answers to a conversation's asks), taken in batches (one transaction each) and stored once per watcher; the
 * planner takes it from there.
 */
import { consume, waitForStream, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { BusStreams, QuestionEvents } from '@relay/proto/relay/bus-contracts';
import type { Logger } from '@relay/telemetry';
import { ingestWatchEvent, ingestWatchEvents, type IngestedBatch } from '../../app/ingest-watch-events.ts';
import type { WatchDeps } from '../../app/ports.ts';
import { decodeWatchEvent } from './decode-watch-event.ts';

// One filter subject each: the nats-server here (before 2.10) takes no list of them.
export const WATCH_CONSUMERS = [
  { stream: BusStreams.SESSION_EVENTS.name, durable: 'subscription-watch-session-events', filterSubjects: BusStreams.SESSION_EVENTS.subjects },
  { stream: QuestionEvents.QUESTION_ANSWERED.stream, durable: 'subscription-watch-question-events', filterSubjects: [QuestionEvents.QUESTION_ANSWERED.subject] },
] as const;


/**
 * Starts both consumers in the background, each once its stream is declared (its publisher may start after
 * this service). stop() ends those that started and gives up waiting for the others.
 */
export function startWatchEventsConsumers(bus: Bus, options: { watch: WatchDeps; clock: Clock; logger: Logger; onIngested: (batch: IngestedBatch) => void }): Consumer {
  const { watch, clock, logger } = options;
  const stopping = new AbortController();
  const started = WATCH_CONSUMERS.map(async (spec): Promise<Consumer | undefined> => {
    if (!(await waitForStream(bus, spec.stream, { logger, signal: stopping.signal }))) return undefined;
    return consume(bus, {
      stream: spec.stream,
      durable: spec.durable,
      filterSubjects: [...spec.filterSubjects],
      logger,
      handler: async (message) => {
        const input = decodeWatchEvent(message.subject, message.data);
        if (input === undefined) return;
        options.onIngested(await ingestWatchEvent(watch, spec.durable, message.id, input, clock.now()));
      },
      // The messages that came together in one transaction; a message that cannot be decoded fails its batch, and is
      // then terminated by the handler above while the others go through.
      batchHandler: async (messages) => {
        const items = messages.flatMap((message) => {
          const input = decodeWatchEvent(message.subject, message.data);
          return input === undefined ? [] : [{ messageId: message.id, input, traceParent: message.traceParent ?? null }];
        });
        if (items.length > 0) options.onIngested(await ingestWatchEvents(watch, spec.durable, items, clock.now()));
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
