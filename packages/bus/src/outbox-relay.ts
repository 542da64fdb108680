import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type BatchObservableCallback,
  type Meter,
  type ObservableGauge,
} from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Attr, Metric, observableGauge, outsideTrace, tracer, type Logger } from '@relay/telemetry';
import type { Bus } from './connect-bus.ts';
import type { OutboxRow } from './enqueue.ts';
import { Messaging } from './messaging-attributes.ts';
import type { Sql, TransactionalSql } from './sql.ts';
import { TRACE_HEADERS } from './trace-headers.ts';

const BATCH_SIZE = 250;
// A round holds its rows' locks while it publishes them; past this it is rolled back and its rows go out again later.
// It waits as long for a connection: Prisma's default (2 s) failed rounds on a starved machine, and a failed round
// waits for the next wake or poll.
const ROUND_TIMEOUT_MS = 60_000;

/**
 * The PostgreSQL channel a service's outbox table NOTIFYs when a transaction that wrote rows commits (the trigger
 * "outbox_notify" of its migrations): the service LISTENs on it and wakes its OutboxRelay.
 */
export const OUTBOX_CHANNEL = 'relay_outbox';

/** How often an OutboxRelay woken by OUTBOX_CHANNEL still looks on its own, for a notification lost with its connection. */
export const OUTBOX_SAFETY_POLL_MS = 10_000;

type Round = { published: number; pending: boolean };

const busTracer = tracer('bus');

/**
 * Publishes committed outbox rows to JetStream, oldest first, with Nats-Msg-Id = row id, and marks
 * them published after the ack. A crash between the two republishes the row, which JetStream drops
 * as a duplicate. Each round holds its rows locked from its read to the commit of their marks, so
 * relays on one table (a service's replicas) take disjoint rows: one waits for the other's round
 * and then passes the rows it published, so each row is published once and in the table's order.
 *
 * `publishCommitted` is the hot path for a writer that knows what its transaction enqueued: it publishes
 * those rows from memory right after the commit, without a round. The rounds stay the safety net for
 * what it misses (a failed publish, a crash before the mark). A row a round publishes too is dropped
 * by JetStream as a duplicate; one process publishes its commits in their order.
 */
export class OutboxRelay {
  readonly #db: TransactionalSql;
  readonly #bus: Bus;
  readonly #logger: Logger;
  readonly #pollIntervalMs: number;
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  // wake() came while a round ran: go again as soon as it ends.
  #woken = false;
  // Rounds run one after another on this chain, never two at once.
  #tail: Promise<unknown> = Promise.resolve();
  #gauges: { meter: Meter; observe: BatchObservableCallback; gauges: ObservableGauge[] } | undefined;

  /**
   * `pollIntervalMs` (default 200): how often it looks for rows nobody woke it for. A service that calls wake()
   * after each commit that enqueues can make it a slow safety net (rows another replica left behind, say).
   */
  constructor(options: { db: TransactionalSql; bus: Bus; logger: Logger; pollIntervalMs?: number }) {
    this.#db = options.db;
    this.#bus = options.bus;
    this.#logger = options.logger;
    this.#pollIntervalMs = options.pollIntervalMs ?? 200;
  }

  /** Starts polling the outbox, and reporting its backlog (relay.outbox.pending, relay.outbox.oldest.age) at each export. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#observeBacklog();
    this.#schedule(0);
  }

  /**
   * The outbox's backlog as gauges, read from the table at each metrics export (none without an exporter): an outbox
   * that stops draining (NATS unreachable, a stream full) shows as a growing age, whichever replica reports it.
   */
  #observeBacklog(): void {
    const meter = metrics.getMeter('@relay/bus');
    const pending = observableGauge(meter, Metric.OUTBOX_PENDING);
    const oldest = observableGauge(meter, Metric.OUTBOX_OLDEST_AGE);
    const observe: BatchObservableCallback = async (result) => {
      try {
        // created_at holds UTC wall time (enqueue stamps it so).
        const [row] = await outsideTrace(() =>
          this.#db.$queryRawUnsafe<{ pending: number; age: number }[]>(
            `SELECT count(*)::int AS "pending",
                    COALESCE(EXTRACT(EPOCH FROM ((now() AT TIME ZONE 'UTC') - min("created_at"))), 0)::float8 AS "age"
               FROM "outbox" WHERE "published_at" IS NULL`,
          ),
        );
        result.observe(pending, row?.pending ?? 0);
        result.observe(oldest, Math.max(0, row?.age ?? 0));
      } catch (error) {
        this.#logger.warn({ err: error }, 'outbox backlog could not be read for its metrics');
      }
    };
    meter.addBatchObservableCallback(observe, [pending, oldest]);
    this.#gauges = { meter, observe, gauges: [pending, oldest] };
  }

  /** Publishes at once what is pending (call it right after a commit that enqueued): a round now, or one more after the round in flight. */
  wake(): void {
    if (!this.#started) return;
    if (this.#timer === undefined) {
      this.#woken = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#schedule(0);
  }

  /**
   * Publishes rows a transaction that just committed enqueued (enqueueRows), in their order and after any round in
   * flight here, then marks those published. Call it right after the commit; it needs no read of the outbox. A row it
   * cannot publish, and those after it, go out with a round (woken at once).
   */
  publishCommitted(rows: readonly OutboxRow[]): Promise<void> {
    return this.#exclusive(async () => {
      try {
        const published = await this.#publishTogether(rows);
        if (published.length < rows.length) this.wake();
        await markPublished(this.#db, published);
      } catch (error) {
        // The rows stay pending: a round publishes them again, and JetStream drops those it has.
        this.#logger.warn({ err: error }, 'could not mark published outbox rows; a round will publish them again');
      }
    });
  }

  /** Publishes everything pending now; returns how many rows it published. */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const round = await this.#exclusive(() => this.#round());
      total += round.published;
      if (!round.pending || round.published === 0) return total;
    }
  }

  /**
   * Stops polling, waits for the batch in flight, then publishes what is still pending (the last step of a
   * service's shutdown). Rows that cannot be published now stay in the outbox for the next start.
   */
  async stop(): Promise<void> {
    this.#started = false;
    if (this.#gauges !== undefined) this.#gauges.meter.removeBatchObservableCallback(this.#gauges.observe, this.#gauges.gauges);
    this.#gauges = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tail;
    try {
      await this.flush();
    } catch (error) {
      this.#logger.warn({ err: error }, 'outbox not fully flushed at shutdown');
    }
  }

  #schedule(delayMs: number): void {
    // Polling rounds belong to no trace; each published row continues the trace it was enqueued in.
    this.#timer = outsideTrace(() => setTimeout(() => void this.#tick(), delayMs));
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    this.#woken = false;
    let round: Round = { published: 0, pending: false };
    try {
      round = await this.#exclusive(() => this.#round());
    } catch (error) {
      this.#logger.error({ err: error }, 'outbox round failed');
    }
    // A full batch means more may be waiting: go again at once rather than after the interval.
    if (this.#started) this.#schedule((round.pending && round.published > 0) || this.#woken ? 0 : this.#pollIntervalMs);
  }

  #exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = outsideTrace(() => this.#tail.then(run));
    this.#tail = result.catch(() => undefined);
    return result;
  }

  async #round(): Promise<Round> {
    return this.#db.$transaction(
      async (tx) => {
        // FOR UPDATE, not SKIP LOCKED: a relay that meets rows another round holds waits for its commit and then
        // passes those it marked, so no row is published by two relays, nor one behind a row enqueued after it.
        const rows = await tx.$queryRawUnsafe<OutboxRow[]>(
          `SELECT "id", "subject", "payload", "headers" FROM "outbox" WHERE "published_at" IS NULL ORDER BY "created_at", "id" LIMIT ${BATCH_SIZE} FOR UPDATE`,
        );
        const published = await this.#publishTogether(rows);
        const failed = published.length < rows.length;
        await markPublished(tx, published);
        return { published: published.length, pending: failed || rows.length === BATCH_SIZE };
      },
      { maxWait: ROUND_TIMEOUT_MS, timeout: ROUND_TIMEOUT_MS },
    );
  }

  /**
   * Sends the rows together: one connection keeps their order into the stream, and the caller waits for one ack time,
   * not one per row. After a failure only the rows before it count as published (their ids are answered); the later
   * ones stay pending and go again with a round, and JetStream drops those that landed this time.
   */
  async #publishTogether(rows: readonly OutboxRow[]): Promise<string[]> {
    const results = await Promise.allSettled(rows.map((row) => this.#publish(row)));
    const firstFailure = results.findIndex((result) => result.status === 'rejected');
    if (firstFailure === -1) return rows.map((row) => row.id);
    const row = rows[firstFailure]!;
    const error = (results[firstFailure] as PromiseRejectedResult).reason;
    this.#logger.warn({ err: error, messageId: row.id, subject: row.subject }, 'outbox publish failed; will retry');
    return rows.slice(0, firstFailure).map((before) => before.id);
  }

  async #publish(row: OutboxRow): Promise<void> {
    const stored = row.headers ?? {};
    const parent = propagation.extract(ROOT_CONTEXT, stored);
    const attributes = {
      [Messaging.SYSTEM]: 'nats',
      [Messaging.OPERATION_TYPE]: 'send',
      [Messaging.DESTINATION_NAME]: row.subject,
      [Messaging.MESSAGE_ID]: row.id,
      [Attr.BUS_SUBJECT]: row.subject,
      [Attr.BUS_MESSAGE_ID]: row.id,
    };
    await busTracer.startActiveSpan(`${row.subject} publish`, { kind: SpanKind.PRODUCER, attributes }, parent, async (span) => {
      try {
        const outgoing = natsHeaders();
        for (const [key, value] of Object.entries(stored)) {
          if (!(TRACE_HEADERS as readonly string[]).includes(key)) outgoing.set(key, value);
        }
        // Consumers continue from this producer span, not from the enqueuing one.
        const trace: Record<string, string> = {};
        propagation.inject(context.active(), trace);
        for (const [key, value] of Object.entries(trace)) outgoing.set(key, value);
        const ack = await this.#bus.js.publish(row.subject, JSON.stringify(row.payload), { msgID: row.id, headers: outgoing });
        if (ack.duplicate) span.addEvent('duplicate', { stream: ack.stream, seq: ack.seq });
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }
}

/**
 * Marks the rows published. Rows another relay's round holds are skipped, not waited for: that round publishes and
 * marks them itself, and waiting could deadlock with it (its read locks rows in the table's order, an update in
 * another). A round's own locks never make it skip its rows.
 */
async function markPublished(sql: Sql, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const placeholders = ids.map((_, index) => `$${index + 1}`).join(', ');
  await sql.$executeRawUnsafe(
    `UPDATE "outbox" SET "published_at" = CURRENT_TIMESTAMP
      WHERE "id" IN (SELECT "id" FROM "outbox" WHERE "id" IN (${placeholders}) AND "published_at" IS NULL FOR UPDATE SKIP LOCKED)`,
    ...ids,
  );
}
