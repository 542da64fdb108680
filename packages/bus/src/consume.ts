import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { nanos } from '@nats-io/transport-node';
import { AckPolicy, JetStreamApiCodes, JetStreamApiError, type ConsumerConfig, type ConsumerInfo, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { appError, isAppError, isTransient } from '@relay/errors';
import { Attr, histogram, instruments, Metric, secondsSince, tracer, type Logger } from '@relay/telemetry';
import type { Bus } from './connect-bus.ts';
import type { BusContract, BusStream } from './contract.ts';
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
  /**
   * Given to a batch handler only: the W3C traceparent of this message's CONSUMER span (no span is active
   * while a batch runs, as the batch's messages belong to different traces).
   */
  traceParent?: string | null;
};

/** A running consumer. */
export type Consumer = {
  /** Stops pulling, hands back messages not yet started, and waits for the handler in flight. */
  stop(): Promise<void>;
};

/** What the consumer runs on: the options by contract, with the stream, the filter and the decoding worked out. */
type ConsumeOptions = {
  stream: string;
  durable: string;
  filterSubjects: string[];
  maxDeliver?: number;
  logger: Logger;
  handler: (message: BusMessage) => Promise<void>;
  /**
   * Optional: the messages that arrived together (at most `maxBatch`, in stream order) in one call, e.g. one
   * transaction. Resolve → all acked. If it throws, each message goes through `handler` on its own, which
   * settles it as above, so one bad message costs its batch a retry and nothing else.
   */
  batchHandler?: (messages: BusMessage[]) => Promise<void>;
  /** The largest batch handed to `batchHandler` (default 100). */
  maxBatch?: number;
};

/** A message of one of the contracts consumed, its payload decoded with that contract's codec. */
export type Delivered<C extends BusContract> =
  C extends BusContract<infer T> ? Omit<BusMessage, 'subject' | 'data'> & { subject: C['subject']; data: T } : never;

/** ConsumeOptions by contract: the stream, the filter and the payloads' types all come from the contracts. */
export type ContractConsumeOptions<C extends BusContract> = Omit<ConsumeOptions, 'stream' | 'filterSubjects' | 'handler' | 'batchHandler'> & {
  /** The subjects consumed, all on one stream; the consumer filters on them. */
  contracts: readonly C[];
  /**
   * Set: the consumer filters on this whole stream (its wildcard) rather than on the contracts' subjects; a
   * message whose subject no contract names is acked unread.
   */
  wholeStream?: BusStream;
  handler: (message: Delivered<C>) => Promise<void>;
  batchHandler?: (messages: Delivered<C>[]) => Promise<void>;
};

export const DEFAULT_MAX_DELIVER = 10;
const ACK_WAIT_MS = 30_000;
// Few messages wait in the client at once, so none sits there past its ack wait behind slow handlers.
const PREFETCH = 10;
const DEFAULT_MAX_BATCH = 100;
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
 * CONSUMER span continuing the message's trace (or `batchHandler` on the messages that arrived together). Resolve → ack; a transient AppError or a plain Error
 * → nak with backoff; any other AppError → term, logged with its code.
 */
export async function consume<C extends BusContract>(bus: Bus, given: ContractConsumeOptions<C>): Promise<Consumer> {
  const options = byContract(given);
  const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  await ensureConsumer(bus, options.stream, {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: maxDeliver,
    ...filterConfig(options.filterSubjects),
  });
  const consumer = await bus.js.consumers.get(options.stream, options.durable);
  const maxBatch = options.batchHandler === undefined ? 1 : (options.maxBatch ?? DEFAULT_MAX_BATCH);
  // A batch handler gets what waits in the client when it is free: at low rates a batch of one, under load up to
  // maxBatch, never held back to fill one.
  const messages = await consumer.consume({ max_messages: Math.max(PREFETCH, maxBatch) });
  logNotifications(messages, options).catch((error: unknown) =>
    options.logger.warn({ err: error, durable: options.durable }, 'consumer notifications ended with an error'),
  );
  let stopping = false;
  const settleSafely = async (run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      // Acking on a closed connection, say: the message comes back after its ack wait.
      options.logger.error({ err: error, durable: options.durable }, 'could not settle message');
    }
  };
  let loop: Promise<void>;
  if (options.batchHandler === undefined) {
    loop = (async () => {
      for await (const message of messages) {
        await settleSafely(async () => {
          // Buffered but not started: hand it back for another replica.
          if (stopping) message.nak(STOP_NAK_DELAY_MS);
          else await handle(message, options, maxDeliver);
        });
      }
    })();
  } else {
    const batchHandler = options.batchHandler;
    const waiting: JsMsg[] = [];
    let arrived: (() => void) | undefined;
    let ended = false;
    const pump = (async () => {
      for await (const message of messages) {
        waiting.push(message);
        arrived?.();
      }
    })().finally(() => {
      ended = true;
      arrived?.();
    });
    const worker = (async () => {
      for (;;) {
        if (waiting.length === 0) {
          if (ended) return;
          await new Promise<void>((resolve) => (arrived = resolve));
          arrived = undefined;
          continue;
        }
        const batch = waiting.splice(0, maxBatch);
        await settleSafely(async () => {
          if (stopping) for (const message of batch) message.nak(STOP_NAK_DELAY_MS);
          else await handleBatch(batch, batchHandler, options, maxDeliver);
        });
      }
    })();
    loop = Promise.all([pump, worker]).then(() => undefined);
  }
  loop.catch((error: unknown) => options.logger.error({ err: error, durable: options.durable }, 'consumer loop failed'));
  return {
    stop: async () => {
      stopping = true;
      await messages.close();
      await loop.catch(() => undefined);
    },
  };
}

/** The untyped options a contract consumer runs on: each payload decoded with its subject's codec before the handler. */
function byContract<C extends BusContract>(options: ContractConsumeOptions<C>): ConsumeOptions {
  const { contracts, wholeStream, handler, batchHandler, ...rest } = options;
  const streams = [...new Set([...contracts.map((contract) => contract.stream), ...(wholeStream === undefined ? [] : [wholeStream.name])])];
  if (streams.length !== 1)
    throw new Error(`consumer ${options.durable}: its contracts are on ${streams.length} streams (${streams.join(', ')}); one consumer reads one stream`);
  const bySubject = new Map<string, C>(contracts.map((contract) => [contract.subject, contract]));
  const decode = (message: BusMessage): Delivered<C> | undefined => {
    const contract = bySubject.get(message.subject);
    if (contract === undefined) return undefined;
    // No codec reads anything but an object; such a payload would fail every delivery, so it is terminated.
    if (typeof message.data !== 'object' || message.data === null)
      throw appError('REMOTE_RELAY_INVALID_INPUT', `${message.subject}: the payload is not a JSON object`);
    return { ...message, data: contract.codec.fromJSON(message.data) } as Delivered<C>;
  };
  return {
    ...rest,
    stream: streams[0]!,
    filterSubjects: wholeStream === undefined ? contracts.map((contract) => contract.subject) : [...wholeStream.subjects],
    handler: async (message) => {
      const delivered = decode(message);
      if (delivered !== undefined) await handler(delivered);
    },
    ...(batchHandler === undefined
      ? {}
      : {
          batchHandler: async (messages: BusMessage[]) => {
            const delivered = messages.flatMap((message) => decode(message) ?? []);
            if (delivered.length > 0) await batchHandler(delivered);
          },
        }),
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

/** The message's Nats-Msg-Id, or its stream position when it has none. */
function messageIdOf(message: JsMsg): string {
  return message.headers?.has('Nats-Msg-Id') ? message.headers.get('Nats-Msg-Id') : `${message.info.stream}:${message.info.streamSequence}`;
}

/** Starts the message's CONSUMER span, continuing the trace in its headers; answers it with the context it is active in. */
function startProcessSpan(message: JsMsg, id: string, durable: string): { span: Span; active: Context } {
  const parent = message.headers ? propagation.extract(ROOT_CONTEXT, message.headers, natsHeaderGetter) : ROOT_CONTEXT;
  const attributes = {
    [Messaging.SYSTEM]: 'nats',
    [Messaging.OPERATION_TYPE]: 'process',
    [Messaging.DESTINATION_NAME]: message.subject,
    [Messaging.MESSAGE_ID]: id,
    [Messaging.CONSUMER_GROUP_NAME]: durable,
    [Attr.BUS_SUBJECT]: message.subject,
    [Attr.BUS_MESSAGE_ID]: id,
    [Attr.BUS_CONSUMER]: durable,
    [Attr.BUS_DELIVERY_COUNT]: message.info.deliveryCount,
  };
  const span = busTracer.startSpan(`${message.subject} process`, { kind: SpanKind.CONSUMER, attributes }, parent);
  return { span, active: trace.setSpan(parent, span) };
}

/** Long handlers keep their messages: without this JetStream would hand them to another replica after the ack wait. */
function keepAlive(messages: readonly JsMsg[], log: Logger): () => void {
  const timer = setInterval(() => {
    for (const message of messages) {
      try {
        message.working();
      } catch (error) {
        // A closed connection: the message comes back after its ack wait, as it would after a crash.
        log.warn({ err: error }, 'could not extend the ack wait');
      }
    }
  }, ACK_WAIT_MS / 3);
  return () => clearInterval(timer);
}

async function handle(message: JsMsg, options: ConsumeOptions, maxDeliver: number): Promise<void> {
  const startedAt = performance.now();
  const id = messageIdOf(message);
  const deliveryCount = message.info.deliveryCount;
  const { span, active } = startProcessSpan(message, id, options.durable);
  await context.with(active, async () => {
    const handling: Handling = { span, startedAt, durable: options.durable, subject: message.subject };
    const log = options.logger.child({ messageId: id, subject: message.subject, durable: options.durable, deliveryCount });
    const release = keepAlive([message], log);
    try {
      let data: unknown;
      try {
        data = message.json();
      } catch (error) {
        terminateMalformed(message, handling, log, error);
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
      release();
      span.end();
    }
  });
}

function terminateMalformed(message: JsMsg, handling: Handling, log: Logger, error: unknown): void {
  settle(handling, 'term', error);
  log.error({ err: error, code: 'BUS_MALFORMED_MESSAGE' }, 'message is not JSON; terminated');
  message.term();
}

/**
 * Runs the batch handler on the messages that arrived together, each in its own CONSUMER span (the handler gets
 * each span's traceparent). Resolve → all acked; a throw → each message handled on its own by `handle`.
 */
async function handleBatch(
  batch: JsMsg[],
  batchHandler: (messages: BusMessage[]) => Promise<void>,
  options: ConsumeOptions,
  maxDeliver: number,
): Promise<void> {
  const startedAt = performance.now();
  const taken: { message: JsMsg; handling: Handling; busMessage: BusMessage }[] = [];
  const spans: Span[] = [];
  const release = keepAlive(batch, options.logger);
  try {
    for (const message of batch) {
      const id = messageIdOf(message);
      const { span, active } = startProcessSpan(message, id, options.durable);
      spans.push(span);
      const handling: Handling = { span, startedAt, durable: options.durable, subject: message.subject };
      let data: unknown;
      try {
        data = message.json();
      } catch (error) {
        terminateMalformed(message, handling, options.logger.child({ messageId: id, subject: message.subject, durable: options.durable }), error);
        continue;
      }
      const carrier: Record<string, string> = {};
      propagation.inject(active, carrier);
      const busMessage = { id, subject: message.subject, data, deliveryCount: message.info.deliveryCount, traceParent: carrier.traceparent ?? null };
      taken.push({ message, handling, busMessage });
    }
    if (taken.length === 0) return;
    try {
      // The batch's messages belong to different traces: none of them is active while it runs.
      await context.with(ROOT_CONTEXT, () => batchHandler(taken.map((item) => item.busMessage)));
    } catch (error) {
      options.logger.warn({ err: error, durable: options.durable, size: taken.length }, 'batch failed; handling its messages one at a time');
      for (const item of taken) item.handling.span.addEvent('batch failed');
      for (const item of taken) await handle(item.message, options, maxDeliver);
      return;
    }
    for (const item of taken) {
      settle(item.handling, 'ack');
      item.message.ack();
    }
  } finally {
    release();
    for (const span of spans) span.end();
  }
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
