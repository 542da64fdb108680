/**
 * This relay's cursors on paired relays, in PostgreSQL. Replicas take due rows with `FOR UPDATE SKIP LOCKED` and
 * lease them for the length of one fetch, so no subscription is fetched twice at once; a replica that dies lets
 * its lease run out and another takes the row over.
 */
import type { RemoteSubscription, RemoteSubscriptionStore } from '../../app/remote-ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

type Row = { subscription_id: string; relay: string; cursor: number; online: boolean; next_fetch_at?: Date };

export class PrismaRemoteSubscriptionStore implements RemoteSubscriptionStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async open(subscriptionId: string, relay: string, now: Date): Promise<void> {
    await this.#prisma.remoteSubscription.upsert({
      where: { subscriptionId },
      update: {},
      create: { subscriptionId, relay, nextFetchAt: now, createdAt: now },
    });
  }

  async close(subscriptionId: string): Promise<RemoteSubscription | undefined> {
    const rows = await this.#prisma.$queryRaw<Row[]>`
      DELETE FROM remote_subscriptions WHERE subscription_id = ${subscriptionId} RETURNING subscription_id, relay, cursor, online`;
    return rows[0] === undefined ? undefined : toSubscription(rows[0]);
  }

  async closeRelay(relay: string): Promise<string[]> {
    const rows = await this.#prisma.$queryRaw<Row[]>`DELETE FROM remote_subscriptions WHERE relay = ${relay} RETURNING subscription_id, relay, cursor, online`;
    return rows.map((row) => row.subscription_id);
  }

  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<RemoteSubscription[]> {
    const rows = await this.#prisma.$queryRaw<Row[]>`
      UPDATE remote_subscriptions SET lease_until = ${leaseUntil}
      WHERE subscription_id IN (
        SELECT subscription_id FROM remote_subscriptions
        WHERE next_fetch_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY next_fetch_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING subscription_id, relay, cursor, online, next_fetch_at`;
    return rows.map(toSubscription);
  }

  async nextDueAt(): Promise<Date | undefined> {
    const { _min } = await this.#prisma.remoteSubscription.aggregate({ _min: { nextFetchAt: true } });
    return _min.nextFetchAt ?? undefined;
  }

  async settle(subscriptionId: string, state: { cursor: number; online: boolean }, nextFetchAt: Date): Promise<void> {
    await this.#prisma.remoteSubscription.updateMany({
      where: { subscriptionId },
      data: { cursor: state.cursor, online: state.online, nextFetchAt, leaseUntil: null },
    });
  }
}

function toSubscription(row: Row): RemoteSubscription {
  const subscription = { subscriptionId: row.subscription_id, relay: row.relay, cursor: row.cursor, online: row.online };
  return row.next_fetch_at === undefined ? subscription : { ...subscription, dueAt: row.next_fetch_at };
}
