/**
 * Subscriptions, watchers and their events in PostgreSQL, statement by statement (the use cases in app/ decide what
 * to read and write): the pipeline's statements in plain SQL (sql-watch-statements.ts), run on a `pg` connection in
 * `pipelineTransaction`; list_subscriptions' reading (its rows, which can be many, the held events and the watcher's
 * state) as one prepared statement on the pool; the others, seldom made or of a row or two, through Prisma's client.
 */
import type { OutboxRow } from '@relay/bus';
import { preparedRead, type PreparedRead } from '@relay/db/prepared-read';
import type pg from 'pg';
import type { HeldEvent, PipelineTransaction, SubscriptionListing, WatchStore, WatchTransaction } from '../../app/ports.ts';
import type { WatcherState } from '../../domain/delivery/index.ts';
import { EMPTY_WATCHER_STATE } from '../../domain/subscriptions/plan-watcher.ts';
import type { Subscription } from '../../domain/subscriptions/subscription.ts';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { pgTransaction } from './sql-statement.ts';
import { SqlWatchStatements, SUBSCRIPTION_COLUMN_LIST, toSubscription, type SubscriptionRow } from './sql-watch-statements.ts';
import { stateFromJson, stateToJson } from './watch-codec.ts';

type Tx = Prisma.TransactionClient;

/**
 * list_subscriptions' reading in plain SQL on the pool Prisma's client uses (docs/adr/0024), one statement: a watcher's
 * subscriptions can be many (1,000 cost the service 6–7 ms of CPU a call through Prisma's client, most of it mapping
 * the rows), and the held events and the watcher's state, read beside them in two more statements, cost more than the
 * rows (three round trips, two of them through Prisma's client). Both come on the first row only, once (a scalar
 * subquery runs once, when first needed): with no subscription there is nothing to show them with.
 */
const LISTING: PreparedRead = {
  name: 'watch_subscription_listing',
  text: `SELECT ${SUBSCRIPTION_COLUMN_LIST},
           CASE WHEN row_number() OVER listing = 1 THEN (SELECT state FROM watchers WHERE session_id = $1) END AS "watcherState",
           CASE WHEN row_number() OVER listing = 1 THEN (
             SELECT json_agg(json_build_object('status', status, 'releaseAt', release_at, 'deliverAt', deliver_at, 'heldBy', held_by))
             FROM watcher_events WHERE watcher_session_id = $1 AND status IN ('held', 'released')
           ) END AS "heldEvents"
          FROM subscriptions
          WHERE watcher_session_id = $1 AND (ended_at IS NULL OR ended_at >= $2)
          WINDOW listing AS (ORDER BY created_at, id)
          ORDER BY created_at, id`,
};

/** A LISTING row: a subscription, and on the first row the watcher's state and held events as stored (JSON). */
type ListingRow = SubscriptionRow & { watcherState: unknown; heldEvents: HeldEventJson[] | null };

/** A held event as json_build_object writes it: a TIMESTAMP(3) as ISO 8601 without its zone (UTC, as Prisma writes them). */
type HeldEventJson = Omit<HeldEvent, 'releaseAt' | 'deliverAt'> & { releaseAt: string | null; deliverAt: string | null };

const utc = (instant: string | null): Date | null => (instant === null ? null : new Date(`${instant}Z`));

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** WatchTransaction on a Prisma client, or on an interactive transaction's. */
class PrismaWatchStatements extends SqlWatchStatements implements WatchTransaction {
  constructor(
    protected readonly db: Tx,
    enqueued: (rows: readonly OutboxRow[]) => void,
  ) {
    super(db, enqueued);
  }

  async lockWatcher(sessionId: string, userId: string): Promise<void> {
    await this.db
      .$executeRaw`INSERT INTO watchers (session_id, user_id, state) VALUES (${sessionId}, ${userId}, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb)
      ON CONFLICT (session_id) DO NOTHING`;
    await this.db.$queryRaw`SELECT session_id FROM watchers WHERE session_id = ${sessionId} FOR UPDATE`;
  }

  async lockWatcherState(sessionId: string): Promise<WatcherState | undefined> {
    const rows = await this.db.$queryRaw<{ state: unknown }[]>`SELECT state FROM watchers WHERE session_id = ${sessionId} FOR UPDATE`;
    return rows[0] === undefined ? undefined : stateFromJson(rows[0].state);
  }

  async saveWatcherState(sessionId: string, state: WatcherState, dueAt: Date): Promise<void> {
    await this.db.watcher.update({ where: { sessionId }, data: { state: json(stateToJson(state)), nextEvaluationAt: dueAt } });
  }

  async makeWatcherDue(sessionId: string, at: Date): Promise<void> {
    await this.db.watcher.update({ where: { sessionId }, data: { nextEvaluationAt: at } });
  }

  async nextDueAt(): Promise<Date | null> {
    const rows = await this.db.$queryRaw<{ at: Date | null }[]>`SELECT min(next_evaluation_at) AS at FROM watchers`;
    return rows[0]?.at ?? null;
  }

  countActiveSubscriptions(watcherSessionId: string): Promise<number> {
    return this.db.subscription.count({ where: { watcherSessionId, endedAt: null } });
  }

  async createSubscription(subscription: Subscription): Promise<void> {
    const { quietHours, sessions, exclude, events, ...rest } = subscription;
    await this.db.subscription.create({
      data: { ...rest, sessions: json(sessions), exclude: json(exclude), events: json(events), quietHours: quietHours === null ? undefined : json(quietHours) },
    });
  }

  async activeSubscriptions(watcherSessionId: string, userId?: string): Promise<Subscription[]> {
    const rows = await this.db.subscription.findMany({
      where: { watcherSessionId, endedAt: null, ...(userId === undefined ? {} : { userId }) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toSubscription);
  }

  async activeSubscriptionIds(watcherSessionId: string, subscriptionId: string | null): Promise<string[]> {
    const rows = await this.db.subscription.findMany({
      where: { watcherSessionId, endedAt: null, ...(subscriptionId === null ? {} : { id: subscriptionId }) },
      select: { id: true },
    });
    return rows.map((row) => row.id);
  }

  async activeSubscriptionsOfUser(userId: string): Promise<Subscription[]> {
    const rows = await this.db.subscription.findMany({ where: { userId, endedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toSubscription);
  }

  async activeRelaySubscriptionIds(relay: string, userId: string | null): Promise<string[]> {
    const rows = await this.db.subscription.findMany({ where: { relay, endedAt: null, ...(userId === null ? {} : { userId }) }, select: { id: true } });
    return rows.map((row) => row.id);
  }

  async lockSubscription(id: string): Promise<Subscription | undefined> {
    await this.db.$queryRaw`SELECT id FROM subscriptions WHERE id = ${id} FOR UPDATE`;
    const row = await this.db.subscription.findUnique({ where: { id } });
    return row === null ? undefined : toSubscription(row);
  }

  async moveSubscriptions(ids: readonly string[], from: string, to: string): Promise<void> {
    await this.db.subscription.updateMany({ where: { id: { in: [...ids] } }, data: { watcherSessionId: to } });
    await this.db.$executeRaw`UPDATE watcher_events SET watcher_session_id = ${to}
      WHERE watcher_session_id = ${from} AND status IN ('new', 'held', 'waiting', 'released')
        AND source_event_id NOT IN (SELECT source_event_id FROM watcher_events WHERE watcher_session_id = ${to})`;
  }

  linkState(subscriptionId: string): Promise<{ online: boolean; replayedPending: number }> {
    return this.db.subscription
      .findUniqueOrThrow({ where: { id: subscriptionId }, select: { linkOnline: true, replayedPending: true } })
      .then((row) => ({ online: row.linkOnline, replayedPending: row.replayedPending }));
  }

  async setLinkState(subscriptionId: string, online: boolean, at: Date): Promise<void> {
    await this.db.subscription.update({
      where: { id: subscriptionId },
      data: { linkOnline: online, linkChangedAt: at, ...(online ? { replayedPending: 0 } : {}) },
    });
  }

  async addReplayed(subscriptionId: string, count: number): Promise<void> {
    await this.db.subscription.update({ where: { id: subscriptionId }, data: { replayedPending: { increment: count } } });
  }

  async releaseWaitingEvents(watcherSessionId: string): Promise<void> {
    await this.db.watcherEvent.updateMany({ where: { watcherSessionId, status: 'waiting' }, data: { status: 'new' } });
  }
}

/**
 * Subscriptions, watchers and their events in PostgreSQL; `transaction` runs a use case's statements in one interactive
 * transaction of Prisma's client, `pipelineTransaction` the pipeline's in one transaction on a connection of `pool`,
 * the pool Prisma's client uses (its adapter's). `publish` gets the outbox rows of the wake-ups either wrote, right
 * after it commits (OutboxRelay.publishCommitted); without it they wait for the outbox relay's next round.
 */
export class PrismaWatchStore extends PrismaWatchStatements implements WatchStore {
  readonly #prisma: PrismaClient;
  readonly #pool: pg.Pool;
  readonly #publish: (rows: readonly OutboxRow[]) => void;

  constructor(prisma: PrismaClient, pool: pg.Pool, publish: (rows: readonly OutboxRow[]) => void = () => undefined) {
    // A statement on the client itself commits on its own: its wake-ups are published at once.
    super(prisma, publish);
    this.#prisma = prisma;
    this.#pool = pool;
    this.#publish = publish;
  }

  async subscriptionListing(watcherSessionId: string, endedSince: Date): Promise<SubscriptionListing> {
    const { rows } = await preparedRead<ListingRow>(this.#pool, LISTING, [watcherSessionId, endedSince]);
    const first = rows[0];
    return {
      subscriptions: rows.map(toSubscription),
      held: (first?.heldEvents ?? []).map((event) => ({ ...event, releaseAt: utc(event.releaseAt), deliverAt: utc(event.deliverAt) })),
      state: first?.watcherState == null ? undefined : stateFromJson(first.watcherState),
    };
  }

  transaction<T>(work: (tx: WatchTransaction) => Promise<T>): Promise<T> {
    return this.#publishedOnCommit((enqueued) => this.#prisma.$transaction((tx) => work(new PrismaWatchStatements(tx, enqueued))));
  }

  pipelineTransaction<T>(work: (tx: PipelineTransaction) => Promise<T>): Promise<T> {
    return this.#publishedOnCommit((enqueued) => pgTransaction(this.#pool, (sql) => work(new SqlWatchStatements(sql, enqueued))));
  }

  /** Runs a transaction, then publishes the wake-ups it enqueued once it has committed (never when it failed). */
  async #publishedOnCommit<T>(transaction: (enqueued: (rows: readonly OutboxRow[]) => void) => Promise<T>): Promise<T> {
    const rows: OutboxRow[] = [];
    const result = await transaction((enqueued) => rows.push(...enqueued));
    if (rows.length > 0) this.#publish(rows);
    return result;
  }
}
