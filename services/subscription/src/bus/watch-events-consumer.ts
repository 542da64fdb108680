/**
 * The consumers that feed subscriptions: session events (turn ends, questions, archives) and question events
 * (answers to a conversation's asks), each stored once per watcher; the planner takes it from there.
 */
import { consume, type Bus, type Consumer } from '@relay/bus';
import type { Clock } from '@relay/clock';
import type { Logger } from '@relay/telemetry';
import type { PrismaWatchStore } from '../store/prisma-watch-store.ts';
import { decodeWatchEvent } from './decode-watch-event.ts';
import { waitForStream } from './session-events-consumer.ts';

// One filter subject each: the nats-server here (before 2.10) takes no list of them.
export const WATCH_CONSUMERS = [
  { stream: 'SESSION_EVENTS', durable: 'subscription-watch-session-events', filterSubjects: ['relay.session.v1.>'] },
  { stream: 'QUESTION_EVENTS', durable: 'subscription-watch-question-events', filterSubjects: ['relay.question.v1.question_answered'] },
] as const;

/** Starts both consumers; a stream not declared yet is waited for. */
export async function startWatchEventsConsumers(bus: Bus, options: { store: PrismaWatchStore; clock: Clock; logger: Logger; onIngested: () => void }): Promise<Consumer[]> {
  const { store, clock, logger } = options;
  const consumers: Consumer[] = [];
  for (const spec of WATCH_CONSUMERS) {
    await waitForStream(bus, spec.stream, logger);
    consumers.push(
      await consume(bus, {
        stream: spec.stream,
        durable: spec.durable,
        filterSubjects: [...spec.filterSubjects],
        logger,
        handler: async (message) => {
          const input = decodeWatchEvent(message.subject, message.data);
          if (input === undefined) return;
          if (await store.ingest(spec.durable, message.id, input, clock.now())) options.onIngested();
        },
      }),
    );
  }
  return consumers;
}
