/**
 * The pipeline's statements (ingesting events, planning watchers) in plain SQL: a fixed number per batch of events or
 * watchers, rows passed as one jsonb recordset. They run on a `pg` connection in the pipeline's transactions, and on
 * Prisma's transaction in the other use cases' (docs/adr/0025).
 */
import { SubscriptionCommands } from '@relay/proto/relay/bus-contracts';
import { enqueueRows, outgoing, processEachOnce, type OutboxEntry, type OutboxRow, type Sql } from '@relay/bus';
import { context } from '@opentelemetry/api';
import { Attr, inNewTrace, linksTo } from '@relay/telemetry';
import type { DueWatcher, NewWatcherEvent, PipelineTransaction, PlanningWrites, WatchedEvent, WatcherWakeUp } from '../../app/ports.ts';
import type { SessionActivity, SessionState } from '../../domain/session-activity.ts';
import { EMPTY_WATCHER_STATE, watcherEventId, type WatcherEvent } from '../../domain/subscriptions/plan-watcher.ts';
import type { WatchedSession } from '../../domain/subscriptions/subscribe-rules.ts';
import type { EndReason, Subscription } from '../../domain/subscriptions/subscription.ts';
import { join, raw, sql, SqlRunner, type Statement } from './sql-statement.ts';
import { eventFromJson, eventToJson, runsFromJson, stateFromJson, stateToJson } from './watch-codec.ts';

/** A subscriptions row as Prisma's client reads it (camelCase). */
export type SubscriptionRow = {
  id: string;
  userId: string;
  watcherSessionId: string;
  relay: string;
  scope: string;
  sessions: unknown;
  exclude: unknown;
  events: unknown;
  once: boolean;
  match: string;
  stalledMinutes: number;
  heartbeatMinutes: number | null;
  digestMinutes: number | null;
  quietHours: unknown;
  createdAt: Date;
  lastDeliveredAt: Date | null;
  endedAt: Date | null;
  endReason: string | null;
};

/** A watcher_events row as Prisma's client reads it (camelCase). */
type EventRow = {
  id: string;
  watcherSessionId: string;
  sourceEventId: string;
  event: unknown;
  subscriptionIds: unknown;
  status: string;
  releaseAt: Date | null;
  deliverAt: Date | null;
  heldBy: unknown;
  capDigest: boolean;
  wakeupId: string | null;
  receivedAt: Date;
  traceParent: string | null;
};

/** A session_activity row as Prisma's client reads it (camelCase). */
export type SessionActivityRow = Omit<SessionActivity, 'runs' | 'state'> & { state: string; runs: unknown };

/** A subscriptions row's columns as SubscriptionRow names them. */
export const SUBSCRIPTION_COLUMN_LIST = `id, user_id AS "userId", watcher_session_id AS "watcherSessionId", relay, scope, sessions, exclude, events, once, match,
   stalled_minutes AS "stalledMinutes", heartbeat_minutes AS "heartbeatMinutes", digest_minutes AS "digestMinutes",
   quiet_hours AS "quietHours", created_at AS "createdAt", last_delivered_at AS "lastDeliveredAt", ended_at AS "endedAt",
   end_reason AS "endReason"`;
const SUBSCRIPTION_COLUMNS = raw(SUBSCRIPTION_COLUMN_LIST);
const EVENT_COLUMNS = raw(
  `id, watcher_session_id AS "watcherSessionId", source_event_id AS "sourceEventId", event, subscription_ids AS "subscriptionIds",
   status, release_at AS "releaseAt", deliver_at AS "deliverAt", held_by AS "heldBy", cap_digest AS "capDigest",
   wakeup_id AS "wakeupId", received_at AS "receivedAt", trace_parent AS "traceParent"`,
);
export const SESSION_ACTIVITY_COLUMNS = raw(
  `session_id AS "sessionId", user_id AS "userId", title, state, last_event_at AS "lastEventAt", last_event_id AS "lastEventId",
   runs, archived_at AS "archivedAt"`,
);

/** A timestamp(3) as to_jsonb writes it (ISO 8601, no zone; the columns hold UTC). */
const fromSqlJson = (value: unknown): Date | null => (typeof value === 'string' ? new Date(`${value}Z`) : null);

type DueWatcherRow = { session_id: string; user_id: string; state: unknown; seq: number };

const toDueWatcher = (row: DueWatcherRow): DueWatcher => ({ sessionId: row.session_id, userId: row.user_id, state: stateFromJson(row.state), seq: row.seq });

export function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    userId: row.userId,
    watcherSessionId: row.watcherSessionId,
    relay: row.relay,
    scope: row.scope === 'all' ? 'all' : 'sessions',
    sessions: row.sessions as Subscription['sessions'],
    exclude: row.exclude as string[],
    events: row.events as Subscription['events'],
    once: row.once,
    match: row.match,
    stalledMinutes: row.stalledMinutes,
    heartbeatMinutes: row.heartbeatMinutes,
    digestMinutes: row.digestMinutes,
    quietHours: row.quietHours as Subscription['quietHours'],
    createdAt: row.createdAt,
    lastDeliveredAt: row.lastDeliveredAt,
    endedAt: row.endedAt,
    endReason: row.endReason,
  };
}

function toWatcherEvent(row: EventRow): WatcherEvent {
  return {
    id: row.id,
    sourceEventId: row.sourceEventId,
    event: eventFromJson(row.event),
    subscriptionIds: row.subscriptionIds as string[],
    status: row.status as WatcherEvent['status'],
    releaseAt: row.releaseAt,
    deliverAt: row.deliverAt,
    heldBy: row.heldBy as WatcherEvent['heldBy'],
    capDigest: row.capDigest,
    wakeupId: row.wakeupId,
  };
}

export function toSessionActivity(row: SessionActivityRow): SessionActivity {
  return { ...row, state: row.state as SessionState, runs: runsFromJson(row.runs) };
}

/** The columns of a watcher_events row that its planning sets (and the event itself, which planning may count into). */
function plannedColumns(event: WatcherEvent) {
  return {
    event: eventToJson(event.event),
    status: event.status,
    release_at: event.releaseAt?.toISOString() ?? null,
    deliver_at: event.deliverAt?.toISOString() ?? null,
    held_by: event.heldBy,
    cap_digest: event.capDigest,
    wakeup_id: event.wakeupId,
  };
}

/**
 * The statement that writes the planned events (a held_by left null keeps the stored one). The event itself is
 * written too: a link_restored line counts the replayed events held when it is planned.
 */
function updateEventsSql(events: readonly WatcherEvent[]): Statement {
  const rows = events.map((event) => ({ id: event.id, ...plannedColumns(event) }));
  return sql`UPDATE watcher_events AS w
      SET event = r.event, status = r.status, release_at = r.release_at, deliver_at = r.deliver_at,
          held_by = COALESCE(r.held_by, w.held_by), cap_digest = r.cap_digest, wakeup_id = r.wakeup_id
     FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
       AS r(id text, event jsonb, status text, release_at timestamp(3), deliver_at timestamp(3), held_by jsonb, cap_digest boolean, wakeup_id text)
    WHERE w.id = r.id`;
}

/**
 * The statement that makes the events' watchers due now (`due`), creating their rows: it holds their locks to the
 * commit, taken in id order so that two batches never wait on each other in a circle. Returns the watchers. Without
 * `due` (the caller evaluates them in the same transaction, which sets when they are due) an existing row keeps its
 * due time: its indexed column unchanged, the lock's update and the evaluation's can stay heap-only (HOT), with no
 * index entries to add.
 */
function upsertWatchersSql(events: readonly NewWatcherEvent[], now: Date, options: { due: boolean }): Statement {
  const watchers = [...new Map(events.map((event) => [event.watcherSessionId, { session_id: event.watcherSessionId, user_id: event.userId }])).values()];
  const nextEvaluationAt = options.due
    ? raw('LEAST(COALESCE(watchers.next_evaluation_at, EXCLUDED.next_evaluation_at), EXCLUDED.next_evaluation_at)')
    : raw('watchers.next_evaluation_at');
  return sql`INSERT INTO watchers (session_id, user_id, state, next_evaluation_at)
      SELECT r.session_id, r.user_id, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb, ${now.toISOString()}::timestamp(3)
        FROM jsonb_to_recordset(${JSON.stringify(watchers)}::jsonb) AS r(session_id text, user_id text) ORDER BY r.session_id
      ON CONFLICT (session_id) DO UPDATE SET next_evaluation_at = ${nextEvaluationAt}
      RETURNING session_id, user_id, state, seq`;
}

/** The statement that inserts the events new to their watchers (UNIQUE(watcher, source event)). */
function insertEventsSql(events: readonly NewWatcherEvent[], now: Date): Statement {
  const rows = events.map((item) => ({
    id: watcherEventId(item.watcherSessionId, item.sourceEventId),
    watcher_session_id: item.watcherSessionId,
    source_event_id: item.sourceEventId,
    event: eventToJson(item.event),
    subscription_ids: item.subscriptionIds,
    trace_parent: item.traceParent,
  }));
  return sql`INSERT INTO watcher_events (id, watcher_session_id, source_event_id, event, subscription_ids, status, received_at, trace_parent)
      SELECT r.id, r.watcher_session_id, r.source_event_id, r.event, r.subscription_ids, 'new', ${now.toISOString()}::timestamp(3), r.trace_parent
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(id text, watcher_session_id text, source_event_id text, event jsonb, subscription_ids jsonb, trace_parent text)
      ON CONFLICT (watcher_session_id, source_event_id) DO NOTHING`;
}

/**
 * The statement that inserts events as planned (they arrived with their watchers' evaluation). Each watcher is locked
 * and every insert of its events takes that lock first, so none of these is stored meanwhile: a conflict fails the
 * transaction rather than being skipped.
 */
function insertPlannedEventsSql(events: readonly WatchedEvent[], now: Date): Statement {
  const rows = events.map(({ watcherSessionId, traceParent, event }) => ({
    id: event.id,
    watcher_session_id: watcherSessionId,
    source_event_id: event.sourceEventId,
    subscription_ids: event.subscriptionIds,
    trace_parent: traceParent,
    ...plannedColumns(event),
  }));
  return sql`INSERT INTO watcher_events (id, watcher_session_id, source_event_id, event, subscription_ids, status, release_at, deliver_at, held_by, cap_digest, wakeup_id, received_at, trace_parent)
      SELECT r.id, r.watcher_session_id, r.source_event_id, r.event, r.subscription_ids, r.status, r.release_at, r.deliver_at, r.held_by, r.cap_digest, r.wakeup_id,
             ${now.toISOString()}::timestamp(3), r.trace_parent
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(id text, watcher_session_id text, source_event_id text, event jsonb, subscription_ids jsonb, status text, release_at timestamp(3),
               deliver_at timestamp(3), held_by jsonb, cap_digest boolean, wakeup_id text, trace_parent text)`;
}

/**
 * PipelineTransaction on a `Sql`: a `pg` connection in a transaction, or Prisma's client or transaction. `enqueued`
 * is handed the outbox rows its wake-ups wrote, to publish once they are committed.
 */
export class SqlWatchStatements implements PipelineTransaction {
  protected readonly run: SqlRunner;

  constructor(
    protected readonly sql: Sql,
    private readonly enqueued: (rows: readonly OutboxRow[]) => void,
  ) {
    this.run = new SqlRunner(sql);
  }

  processEachOnce(consumer: string, messageIds: readonly string[]): Promise<Set<string>> {
    return processEachOnce(this.sql, consumer, messageIds);
  }

  async lockDueWatchers(now: Date, limit: number): Promise<DueWatcher[]> {
    const due = await this.run.rows<DueWatcherRow>(sql`
      SELECT session_id, user_id, state, seq FROM watchers
       WHERE next_evaluation_at <= ${now.toISOString()}::timestamp(3)
       ORDER BY next_evaluation_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED`);
    return due.map(toDueWatcher);
  }

  async subscriptionsWatching(
    userIds: readonly string[],
    sessionIds: readonly string[],
  ): Promise<{ subscriptions: Subscription[]; titles: Map<string, string> }> {
    // Indexed: a subscription to all sessions by its user, a list by the GIN index on `sessions`; the sessions'
    // titles come in the same statement. One `@> ANY` for the lists, not an OR of one `@>` per session: past a few
    // sessions the planner priced the ORs above reading every subscription of the user and testing each against every
    // session (a batch of 50 sessions among 5,000 subscriptions of one user: 220 ms instead of under 1 ms).
    const lists = sessionIds.map((id) => JSON.stringify([{ id }]));
    const rows = await this.run.rows<SubscriptionRow & { titles: Record<string, string> | null }>(sql`
      SELECT ${SUBSCRIPTION_COLUMNS},
             (SELECT json_object_agg(session_id, title) FROM session_activity WHERE session_id = ANY(${sessionIds}::text[])) AS titles
        FROM subscriptions
       WHERE ended_at IS NULL AND relay = '' AND user_id = ANY(${userIds}::text[])
         AND (scope = 'all' OR sessions @> ANY(${lists}::jsonb[]))`);
    return { subscriptions: rows.map(toSubscription), titles: new Map(Object.entries(rows[0]?.titles ?? {})) };
  }

  async listsNaming(sessionId: string): Promise<Subscription[]> {
    const rows = await this.run.rows<SubscriptionRow>(sql`
      SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
       WHERE ended_at IS NULL AND scope = 'sessions' AND sessions @> ${JSON.stringify([{ id: sessionId }])}::jsonb`);
    return rows.map(toSubscription);
  }

  async subscriptionsById(ids: readonly string[]): Promise<Subscription[]> {
    return (await this.run.rows<SubscriptionRow>(sql`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = ANY(${ids}::text[])`)).map(toSubscription);
  }

  async endSubscriptions(ids: readonly string[], at: Date, reason: EndReason): Promise<void> {
    await this.run.execute(sql`UPDATE subscriptions SET ended_at = ${at.toISOString()}::timestamp(3), end_reason = ${reason}
      WHERE id = ANY(${ids}::text[]) AND ended_at IS NULL`);
  }

  async endWatcherSubscriptions(watcherSessionId: string, at: Date, reason: EndReason): Promise<void> {
    await this.run.execute(sql`UPDATE subscriptions SET ended_at = ${at.toISOString()}::timestamp(3), end_reason = ${reason}
      WHERE watcher_session_id = ${watcherSessionId} AND ended_at IS NULL`);
  }

  async setSubscriptionSessions(id: string, sessions: readonly WatchedSession[]): Promise<void> {
    await this.run.execute(sql`UPDATE subscriptions SET sessions = ${JSON.stringify(sessions)}::jsonb WHERE id = ${id}`);
  }

  async readWatched(
    ids: readonly string[],
    withSubscriptions: boolean,
    storedOf: readonly string[] = [],
  ): Promise<{ subscriptions: Subscription[]; events: WatchedEvent[]; stored: Set<string> }> {
    const subscriptions = withSubscriptions
      ? sql`SELECT 'subscription' AS kind, 0 AS ord, to_jsonb(s) AS row
           FROM (SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE watcher_session_id = ANY(${ids}::text[]) AND ended_at IS NULL) s
         UNION ALL `
      : raw('');
    const stored =
      storedOf.length > 0
        ? sql`UNION ALL SELECT 'stored' AS kind, 0 AS ord, to_jsonb(id) AS row FROM watcher_events WHERE id = ANY(${storedOf}::text[])`
        : raw('');
    const rows = await this.run.rows<{ kind: 'subscription' | 'event' | 'stored'; row: Record<string, unknown> }>(sql`${subscriptions}
      SELECT 'event' AS kind, (row_number() OVER (ORDER BY e."receivedAt", e.id))::int AS ord, to_jsonb(e) AS row
        FROM (SELECT ${EVENT_COLUMNS} FROM watcher_events WHERE watcher_session_id = ANY(${ids}::text[]) AND status IN ('new', 'held', 'released')) e
      ${stored}
      ORDER BY kind, ord`);
    const read: { subscriptions: Subscription[]; events: WatchedEvent[]; stored: Set<string> } = { subscriptions: [], events: [], stored: new Set() };
    for (const { kind, row } of rows) {
      if (kind === 'subscription') {
        read.subscriptions.push(
          toSubscription({
            ...row,
            createdAt: fromSqlJson(row.createdAt)!,
            lastDeliveredAt: fromSqlJson(row.lastDeliveredAt),
            endedAt: fromSqlJson(row.endedAt),
          } as SubscriptionRow),
        );
      } else if (kind === 'stored') {
        read.stored.add(row as unknown as string);
      } else {
        const event = {
          ...row,
          releaseAt: fromSqlJson(row.releaseAt),
          deliverAt: fromSqlJson(row.deliverAt),
          receivedAt: fromSqlJson(row.receivedAt)!,
        } as EventRow;
        read.events.push({ watcherSessionId: event.watcherSessionId, traceParent: event.traceParent, event: toWatcherEvent(event) });
      }
    }
    return read;
  }

  async lockWatchersOf(events: readonly NewWatcherEvent[], now: Date): Promise<DueWatcher[]> {
    if (events.length === 0) return [];
    return (await this.run.rows<DueWatcherRow>(upsertWatchersSql(events, now, { due: false }))).map(toDueWatcher);
  }

  /** WatchTransaction.addEvents (a paired relay's events), beside the statements it shares. */
  async addEvents(events: readonly NewWatcherEvent[], now: Date): Promise<number> {
    if (events.length === 0) return 0;
    // The watchers first: the events reference them.
    await this.run.rows(upsertWatchersSql(events, now, { due: true }));
    return this.insertEvents(events, now);
  }

  async insertEvents(events: readonly NewWatcherEvent[], now: Date): Promise<number> {
    if (events.length === 0) return 0;
    return this.run.execute(insertEventsSql(events, now));
  }

  async savePlanning(planning: PlanningWrites, now: Date): Promise<void> {
    const { events: changed, endedIds: ended, deliveredIds: delivered } = planning;
    const saved = planning.watchers.map((watcher) => ({
      session_id: watcher.sessionId,
      state: stateToJson(watcher.state),
      seq: watcher.seq,
      next_evaluation_at: watcher.nextEvaluationAt?.toISOString() ?? null,
    }));
    // The planned events (those that arrived with the evaluation written once, as planned), the subscriptions a once
    // fired or a wake-up reached, and the watchers, in one statement.
    const at = now.toISOString();
    const touched = [...new Set([...ended, ...delivered])];
    const writes = [
      ...(changed.length === 0 ? [] : [sql`events AS (${updateEventsSql(changed)})`]),
      ...(planning.arrived.length === 0 ? [] : [sql`arrived AS (${insertPlannedEventsSql(planning.arrived, now)})`]),
      ...(touched.length === 0
        ? []
        : [
            sql`subscriptions_done AS (UPDATE subscriptions
                SET ended_at = CASE WHEN id = ANY(${ended}::text[]) AND ended_at IS NULL THEN ${at}::timestamp(3) ELSE ended_at END,
                    end_reason = CASE WHEN id = ANY(${ended}::text[]) AND ended_at IS NULL THEN ${'once_fired' satisfies EndReason} ELSE end_reason END,
                    last_delivered_at = CASE WHEN id = ANY(${delivered}::text[]) THEN ${at}::timestamp(3) ELSE last_delivered_at END
              WHERE id = ANY(${touched}::text[]))`,
          ]),
    ];
    await this.run.execute(sql`${writes.length === 0 ? raw('') : sql`WITH ${join(writes, ', ')}`}
      UPDATE watchers AS w SET state = r.state, seq = r.seq, next_evaluation_at = r.next_evaluation_at
        FROM jsonb_to_recordset(${JSON.stringify(saved)}::jsonb) AS r(session_id text, state jsonb, seq int, next_evaluation_at timestamp(3))
       WHERE w.session_id = r.session_id`);
  }

  /** The planner runs outside any trace; each wake-up starts one, linked to the trace of each event it carries. */
  async enqueueWakeUps(wakeUps: readonly WatcherWakeUp[], traceParents: ReadonlyMap<string, string | null>): Promise<void> {
    if (wakeUps.length === 0) return;
    const entries: OutboxEntry[] = [];
    for (const { watcher, wakeUp } of wakeUps) {
      const attributes = {
        [Attr.SESSION_ID]: watcher.sessionId,
        [Attr.USER_ID]: watcher.userId,
        [Attr.WAKEUP_ID]: wakeUp.wakeupId,
        [Attr.WAKEUP_EVENTS]: wakeUp.sourceEventIds.length,
      };
      const links = linksTo(wakeUp.eventIds.map((id) => traceParents.get(id)));
      // The span covers the wake-up's making; the command continues it.
      await inNewTrace('subscription', 'wake-up', { attributes, links }, async () => {
        const command = {
          wakeupId: wakeUp.wakeupId,
          watcherSessionId: watcher.sessionId,
          userId: watcher.userId,
          seq: String(wakeUp.seq),
          text: wakeUp.text,
          sourceEventIds: wakeUp.sourceEventIds,
        };
        entries.push(outgoing(SubscriptionCommands.DELIVER_WAKEUP, command, { id: wakeUp.wakeupId, trace: context.active() }));
      });
    }
    this.enqueued(await enqueueRows(this.sql, entries));
  }

  async sessionActivity(where: { userIds: readonly string[]; sessionIds: readonly string[] }): Promise<SessionActivity[]> {
    const rows = await this.run.rows<SessionActivityRow>(sql`
      SELECT ${SESSION_ACTIVITY_COLUMNS} FROM session_activity WHERE user_id = ANY(${where.userIds}::text[]) OR session_id = ANY(${where.sessionIds}::text[])`);
    return rows.map(toSessionActivity);
  }
}
