import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { nanos } from '@nats-io/transport-node';
import {
  AckPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import { isAppError, isTransient } from '@relay/errors';
import { Attr, histogram, instruments, Metric, secondsSince, tracer, type Logger } from '@relay/telemetry';
import type { Bus } from './connect-bus.ts';
import { Messaging } from './messaging-attributes.ts';
import { natsHeaderGetter } from './trace-headers.ts';

/** A message as a handler sees it. */
export type BusMessage = {
  /** The Nats-Msg-Id (the outbox row id): what processOnce deduplicates on. */
  id: string;
  subject: string;
  /** The parsed JSON payload. */
  data: unknown;
  /** 1 on the first delivery. */
  deliveryCount: number;
};

/** A running consumer. */
export type Consumer = {
  /** Stops pulling, hands back messages not yet started, and waits for the handler in flight. */
  stop(): Promise<void>;
};

export type ConsumeOptions = {
  stream: string;
  durable: string;
  filterSubjects: string[];
  maxDeliver?: number;
  logger: Logger;
  handler: (message: BusMessage) => Promise<void>;
};

export const DEFAULT_MAX_DELIVER = 10;
const ACK_WAIT_MS = 30_000;
// Few messages wait in the client at once, so none sits there past its ack wait behind slow handlers.
const PREFETCH = 10;
const MAX_BACKOFF_MS = 30_000;
// A message handed back at stop() is redelivered after this: at once, nats-server 2.9 can send it to the
// pull request being closed, where it waits out its whole ack wait (and its neighbour came twice).
const STOP_NAK_DELAY_MS = 250;

const busTracer = tracer('bus');
const busMetrics = instruments('bus', (meter) => ({ processDuration: histogram(meter, Metric.MESSAGING_PROCESS_DURATION) }));
// term() is called without a reason on purpose: nats-server 2.9 silently ignores `+TERM <reason>`.

/** The redelivery delay after the `deliveryCount`-th delivery failed: 1 s, 2 s, 4 s, … at most 30 s. */
export function nakDelayMs(deliveryCount: number): number {
  return Math.min(1000 * 2 ** Math.max(deliveryCount - 1, 0), MAX_BACKOFF_MS);
}

/**
 * Creates or updates the durable pull consumer and runs `handler` on each message, one at a time, in a
 * CONSUMER span continuing the message's trace. Resolve → ack; a transient AppError or a plain Error
 * → nak with backoff; any other AppError → term, logged with its code.
 */
export async function consume(bus: Bus, options: ConsumeOptions): Promise<Consumer> {
  const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  await ensureConsumer(bus, options.stream, {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: maxDeliver,
    ...filterConfig(options.filterSubjects),
  });
  const consumer = await bus.js.consumers.get(options.stream, options.durable);
  const messages = await consumer.consume({ max_messages: PREFETCH });
  logNotifications(messages, options).catch((error: unknown) =>
    options.logger.warn({ err: error, durable: options.durable }, 'consumer notifications ended with an error'),
  );
  let stopping = false;
  const loop = (async () => {
    for await (const message of messages) {
      try {
        if (stopping) {
          // Buffered but not started: hand it back for another replica.
          message.nak(STOP_NAK_DELAY_MS);
          continue;
        }
        await handle(message, options, maxDeliver);
      } catch (error) {
        // Acking on a closed connection, say: the message comes back after its ack wait.
        options.logger.error({ err: error, durable: options.durable }, 'could not settle message');
      }
    }
  })();
  loop.catch((error: unknown) => options.logger.error({ err: error, durable: options.durable }, 'consumer loop failed'));
  return {
    stop: async () => {
      stopping = true;
      await messages.close();
      await loop.catch(() => undefined);
    },
  };
}

async function logNotifications(messages: ConsumerMessages, options: ConsumeOptions): Promise<void> {
  for await (const notification of messages.status()) {
    switch (notification.type) {
      case 'heartbeats_missed':
      case 'consumer_not_found':
      case 'stream_not_found':
      case 'consumer_deleted':
      case 'exceeded_limits':
        options.logger.warn({ notification, stream: options.stream, durable: options.durable }, `consumer ${notification.type}`);
        break;
      default:
        break;
    }
  }
}

function filterConfig(subjects: string[]): Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'> {
  // A single filter uses the field every server version knows; several need nats-server 2.10+.
  return subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };
}

async function ensureConsumer(bus: Bus, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  const durable = config.durable_name;
  const { ack_policy: _ackPolicy, durable_name: _durable, ...updatable } = config;
  for (let attempt = 1; ; attempt++) {
    const existing = await consumerInfo(bus, stream, durable);
    if (existing !== undefined) {
      // Only when something changed: every replica's start would otherwise rewrite the same consumer.
      if (!sameConfig(existing.config, updatable)) await bus.jsm.consumers.update(stream, durable, updatable);
      break;
    }
    try {
      await bus.jsm.consumers.add(stream, config);
      break;
    } catch (error) {
      // Another replica created it between our look and our add: go round once more and update.
      if (attempt < 3) continue;
      throw error;
    }
  }
  const info = await bus.jsm.consumers.info(stream, durable);
  const wanted = filtersOf(config);
  const actual = filtersOf(info.config);
  // Older servers silently drop fields they do not know; a consumer that receives everything is worse than none.
  if (wanted.length !== actual.length || wanted.some((subject) => !actual.includes(subject))) {
    throw new Error(`consumer ${stream}/${durable} filters ${JSON.stringify(actual)}, wanted ${JSON.stringify(wanted)}`);
  }
}

function filtersOf(config: Partial<ConsumerConfig>): string[] {
  return [config.filter_subject, ...(config.filter_subjects ?? [])].filter((subject): subject is string => subject !== undefined && subject !== '');
}

/** Whether the consumer already has every setting consume() wants of it. */
function sameConfig(current: Partial<ConsumerConfig>, wanted: Partial<ConsumerConfig>): boolean {
  const [now, want] = [filtersOf(current), filtersOf(wanted)];
  return (
    current.ack_wait === wanted.ack_wait &&
    current.max_deliver === wanted.max_deliver &&
    now.length === want.length &&
    want.every((subject) => now.includes(subject))
  );
}

async function consumerInfo(bus: Bus, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  try {
    return await bus.jsm.consumers.info(stream, durable);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
    throw error;
  }
}

async function handle(message: JsMsg, options: ConsumeOptions, maxDeliver: number): Promise<void> {
  const startedAt = performance.now();
  const id = message.headers?.has('Nats-Msg-Id') ? message.headers.get('Nats-Msg-Id') : `${message.info.stream}:${message.info.streamSequence}`;
  const deliveryCount = message.info.deliveryCount;
  const parent = message.headers ? propagation.extract(ROOT_CONTEXT, message.headers, natsHeaderGetter) : ROOT_CONTEXT;
  const attributes = {
    [Messaging.SYSTEM]: 'nats',
    [Messaging.OPERATION_TYPE]: 'process',
    [Messaging.DESTINATION_NAME]: message.subject,
    [Messaging.MESSAGE_ID]: id,
    [Messaging.CONSUMER_GROUP_NAME]: options.durable,
    [Attr.BUS_SUBJECT]: message.subject,
    [Attr.BUS_MESSAGE_ID]: id,
    [Attr.BUS_CONSUMER]: options.durable,
    [Attr.BUS_DELIVERY_COUNT]: deliveryCount,
  };
  await busTracer.startActiveSpan(`${message.subject} process`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    const handling: Handling = { span, startedAt, durable: options.durable, subject: message.subject };
    const log = options.logger.child({ messageId: id, subject: message.subject, durable: options.durable, deliveryCount });
    // Long handlers keep the message: without this JetStream would hand it to another replica after the ack wait.
    const keepAlive = setInterval(() => {
      try {
        message.working();
      } catch (error) {
        // A closed connection: the message comes back after its ack wait, as it would after a crash.
        log.warn({ err: error }, 'could not extend the ack wait');
      }
    }, ACK_WAIT_MS / 3);
    try {
      let data: unknown;
      try {
        data = message.json();
      } catch (error) {
        settle(handling, 'term', error);
        log.error({ err: error, code: 'BUS_MALFORMED_MESSAGE' }, 'message is not JSON; terminated');
        message.term();
        return;
      }
      try {
        await options.handler({ id, subject: message.subject, data, deliveryCount });
        settle(handling, 'ack');
        message.ack();
      } catch (error) {
        if (isAppError(error) && !isTransient(error)) {
          settle(handling, 'term', error);
          log.error({ err: error, code: error.code }, 'message cannot succeed; terminated');
          message.term();
        } else if (deliveryCount >= maxDeliver) {
          settle(handling, 'term', error);
          log.error({ err: error, code: isAppError(error) ? error.code : undefined }, 'message failed its last delivery; terminated');
          message.term();
        } else {
          const delayMs = nakDelayMs(deliveryCount);
          settle(handling, 'nak', error);
          log.warn({ err: error, code: isAppError(error) ? error.code : undefined, delayMs }, 'message failed; will be redelivered');
          message.nak(delayMs);
        }
      }
    } finally {
      clearInterval(keepAlive);
      span.end();
    }
  });
}

/** One message being handled: its span, and what its `messaging.process.duration` point is recorded with. */
type Handling = { span: Span; startedAt: number; durable: string; subject: string };

/** Records how the message was settled, on its span and in `messaging.process.duration`. */
function settle(handling: Handling, outcome: 'ack' | 'nak' | 'term', error?: unknown): void {
  const { span } = handling;
  span.addEvent(outcome);
  busMetrics().processDuration.record(secondsSince(handling.startedAt), {
    [Messaging.SYSTEM]: 'nats',
    [Messaging.CONSUMER_GROUP_NAME]: handling.durable,
    [Messaging.DESTINATION_NAME]: handling.subject,
    [Attr.BUS_OUTCOME]: outcome,
  });
  if (error === undefined) return;
  if (isAppError(error)) span.setAttribute(Attr.ERROR_CODE, error.code);
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}
