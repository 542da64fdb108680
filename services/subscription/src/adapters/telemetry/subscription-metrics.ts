/**
 * The subscription service's observable metrics, read at each export: events held and not delivered yet, those
 * whose time has come (due now or overdue, by the relay Clock), and how many messages wait for each durable
 * consumer. Every replica reports the same numbers (they come from the shared database and JetStream), so
 * dashboards take the max across replicas, not the sum.
 */
import { metrics, type BatchObservableCallback } from '@opentelemetry/api';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { Bus } from '@relay/bus';
import type { Clock } from '@relay/clock';
import { Attr, Metric, observableGauge, type Logger } from '@relay/telemetry';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';

/** Statuses of an event a subscription took and has not delivered or dropped (plan-watcher's WatcherEventStatus). */
const HELD_STATUSES = ['held', 'waiting', 'released'] as const;

export interface SubscriptionMetrics {
  /** Stops reading; call before the database and the bus close. */
  stop(): void;
}

/** A durable consumer whose lag is reported, on the stream of its contracts. */
type ConsumerName = { durable: string; contracts: readonly { stream: string }[] };

/** Registers the gauges on the global MeterProvider; with metrics off nothing is ever read. `consumers`: the service's durables. */
export function registerSubscriptionMetrics(deps: {
  prisma: PrismaClient;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  consumers: readonly ConsumerName[];
}): SubscriptionMetrics {
  const meter = metrics.getMeter('@relay/subscription');
  const held = observableGauge(meter, Metric.SUBSCRIPTION_HELD_EVENTS);
  const due = observableGauge(meter, Metric.SUBSCRIPTION_DUE_DELIVERIES);
  const lag = observableGauge(meter, Metric.SUBSCRIPTION_CONSUMER_LAG);

  const observe: BatchObservableCallback = async (result) => {
    const [counts, lags] = await Promise.all([eventCounts(deps.prisma, deps.clock.now()), consumerLags(deps.bus, deps.consumers)]).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'subscription metrics could not be read');
      return [undefined, []] as const;
    });
    if (counts) {
      for (const status of HELD_STATUSES) result.observe(held, counts.held[status] ?? 0, { [Attr.SUBSCRIPTION_EVENT_STATUS]: status });
      result.observe(due, counts.due);
    }
    for (const consumer of lags) result.observe(lag, consumer.pending, { [Attr.BUS_STREAM]: consumer.stream, [Attr.BUS_CONSUMER]: consumer.durable });
  };
  meter.addBatchObservableCallback(observe, [held, due, lag]);
  return { stop: () => meter.removeBatchObservableCallback(observe, [held, due, lag]) };
}

async function eventCounts(prisma: PrismaClient, now: Date): Promise<{ held: Partial<Record<string, number>>; due: number }> {
  const at = now.toISOString();
  const rows = await prisma.$queryRaw<{ status: string; total: number; due: number }[]>`
    SELECT status, count(*)::int AS total,
           count(*) FILTER (WHERE (status = 'held' AND release_at <= ${at}::timestamp(3))
                              OR (status = 'released' AND deliver_at <= ${at}::timestamp(3)))::int AS due
      FROM watcher_events
     WHERE status IN (${Prisma.join([...HELD_STATUSES])})
     GROUP BY status`;
  return {
    held: Object.fromEntries(rows.map((row) => [row.status, row.total])),
    due: rows.reduce((sum, row) => sum + row.due, 0),
  };
}

async function consumerLags(bus: Bus, consumers: readonly ConsumerName[]): Promise<{ stream: string; durable: string; pending: number }[]> {
  const lags = await Promise.all(
    consumers.map(async ({ durable, contracts }) => {
      const stream = contracts[0]!.stream;
      try {
        const info = await bus.jsm.consumers.info(stream, durable);
        return { stream, durable, pending: info.num_pending };
      } catch (error) {
        // Not created yet (its stream's publisher has not started): nothing to report.
        if (error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.ConsumerNotFound || error.code === JetStreamApiCodes.StreamNotFound))
          return undefined;
        throw error;
      }
    }),
  );
  return lags.filter((lag) => lag !== undefined);
}
