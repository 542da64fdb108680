/**
 * Subscriptions, watchers and their events in PostgreSQL. Every decision for a watcher is taken in an
 * interactive transaction that holds the watcher's row (`FOR UPDATE SKIP LOCKED` on watchers that are due),
 * so replicas share watchers without ever planning one twice; a wake-up is an outbox row with the
 * deterministic id `<watcher>:<seq>` written in that same transaction. Events come from this relay's streams
 * (ingest), from a paired relay (ingestRemote, reportLinkState) and from the computed rules (stalled, all_idle,
 * the heartbeat), which each evaluation runs first.
 */
import { SubscriptionCommands } from '@relay/proto/relay/bus-contracts';
import { enqueueAll, processEachOnce, type OutboxEntry } from '@relay/bus';
import { context } from '@opentelemetry/api';
import { activeTraceParent, Attr, inNewTrace, linksTo } from '@relay/telemetry';
import type { DeliveryTimings, OwnPromptState, RelayEvent } from '../../domain/delivery/index.ts';
import { evaluateWatcher, EMPTY_WATCHER_STATE, heldBySubscription, type PlannedWakeUp, type WatcherEvent } from '../../domain/subscriptions/plan-watcher.ts';
import { requireRoomFor, takesEvent, type SubscriptionSpec } from '../../domain/subscriptions/subscribe-rules.ts';
import { deliveryView, ENDED_LISTED_MS, newSubscriptionId, type EndReason, type Subscription } from '../../domain/subscriptions/subscription.ts';
import { computeEvents, computesEvents } from '../../domain/subscriptions/computed-events.ts';
import { afterRemoteArchives, parseRemoteEvents, remoteArchives, remoteSourceId, takesRemoteEvent, type RemoteEventInput } from '../../domain/subscriptions/remote-events.ts';
import { computeRemoteWatchEvents, type ComputedRemoteEvent, type RemoteWatchSpec } from '../../domain/subscriptions/remote-watch-events.ts';
import type { SessionCandidate, WatchInput } from '../../domain/subscriptions/watch-event.ts';
import { subscriptionRefusal } from '../../domain/errors.ts';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts';
import { toSessionActivity } from './prisma-session-activity-store.ts';
import { eventFromJson, eventToJson, stateFromJson, stateToJson } from './watch-codec.ts';

type Tx = Prisma.TransactionClient;
type SubscriptionRow = Pick<
  Awaited<ReturnType<PrismaClient['subscription']['findFirstOrThrow']>>,
  | 'id' | 'userId' | 'watcherSessionId' | 'relay' | 'scope' | 'sessions' | 'exclude' | 'events' | 'once' | 'match' | 'stalledMinutes'
  | 'heartbeatMinutes' | 'digestMinutes' | 'quietHours' | 'createdAt' | 'lastDeliveredAt' | 'endedAt' | 'endReason'
>;
type EventRow = Awaited<ReturnType<PrismaClient['watcherEvent']['findFirstOrThrow']>>;

/** A subscription row's columns as toSubscription reads them (raw queries on the hot path skip Prisma's query compiler). */
const SUBSCRIPTION_COLUMNS = Prisma.raw(
  `id, user_id AS "userId", watcher_session_id AS "watcherSessionId", relay, scope, sessions, exclude, events, once, match,
   stalled_minutes AS "stalledMinutes", heartbeat_minutes AS "heartbeatMinutes", digest_minutes AS "digestMinutes",
   quiet_hours AS "quietHours", created_at AS "createdAt", last_delivered_at AS "lastDeliveredAt", ended_at AS "endedAt",
   end_reason AS "endReason"`,
);
const EVENT_COLUMNS = Prisma.raw(
  `id, watcher_session_id AS "watcherSessionId", source_event_id AS "sourceEventId", event, subscription_ids AS "subscriptionIds",
   status, release_at AS "releaseAt", deliver_at AS "deliverAt", held_by AS "heldBy", cap_digest AS "capDigest",
   wakeup_id AS "wakeupId", received_at AS "receivedAt", trace_parent AS "traceParent"`,
);

/** A timestamp(3) as to_jsonb writes it (ISO 8601, no zone; the columns hold UTC). */
const fromSqlJson = (value: unknown): Date | null => (typeof value === 'string' ? new Date(`${value}Z`) : null);

/**
 * The subject of the wake-up command the session service consumes. Its payload is written as it is, not through
 * the contract's codec: ts-proto writes the int64 seq as a JSON number, the payload has always carried a string.
 */
const DELIVER_WAKEUP_SUBJECT = SubscriptionCommands.DELIVER_WAKEUP.subject;

const json = (value: unknown) => value as Prisma.InputJsonValue;
const earliest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a.getTime() <= b.getTime() ? a : b);

/** One bus message for ingestBatch: its id, what it says, and the traceparent of the span it came in with. */
export type IngestItem = { messageId: string; input: WatchInput; traceParent: string | null };

/** An event to store for a watcher, with the trace it came in with. */
type NewEvent = { sourceEventId: string; event: RelayEvent; subscriptionIds: string[] };
type NewWatcherEvent = NewEvent & { watcherSessionId: string; userId: string; traceParent: string | null };

type DueWatcherRow = { session_id: string; user_id: string; state: unknown; seq: number };

/** Watchers' active subscriptions and their events still to plan, each with the trace it came in with. */
type WatchedRead = { subscriptions: Subscription[]; events: { watcherSessionId: string; traceParent: string | null; event: WatcherEvent }[] };

/** What one planning transaction did: watchers evaluated and wake-ups enqueued (to publish after the commit). */
export type PlanningPass = { evaluated: number; wakeUps: number };

/** What ingestBatch did: messages new to the consumer, wake-ups enqueued, and when a watcher it planned is due next. */
export type IngestedBatch = { ingested: number; wakeUps: number; nextDueAt: Date | null };

/** The candidate's event with the session's title as the watcher sees it. */
function withTitle(candidate: SessionCandidate, sessionId: string, title: string): RelayEvent {
  return 'session' in candidate.event ? ({ ...candidate.event, session: { id: sessionId, title } } as RelayEvent) : candidate.event;
}

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

function toSubscription(row: SubscriptionRow): Subscription {
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

/**
 * The statement that writes the planned events (a held_by left null keeps the stored one). The event itself is
 * written too: a link_restored line counts the replayed events held when it is planned.
 */
function updateEventsSql(events: readonly WatcherEvent[]): Prisma.Sql {
  const rows = events.map((event) => ({
    id: event.id,
    event: eventToJson(event.event),
    status: event.status,
    release_at: event.releaseAt?.toISOString() ?? null,
    deliver_at: event.deliverAt?.toISOString() ?? null,
    held_by: event.heldBy,
    cap_digest: event.capDigest,
    wakeup_id: event.wakeupId,
  }));
  return Prisma.sql`UPDATE watcher_events AS w
      SET event = r.event, status = r.status, release_at = r.release_at, deliver_at = r.deliver_at,
          held_by = COALESCE(r.held_by, w.held_by), cap_digest = r.cap_digest, wakeup_id = r.wakeup_id
     FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
       AS r(id text, event jsonb, status text, release_at timestamp(3), deliver_at timestamp(3), held_by jsonb, cap_digest boolean, wakeup_id text)
    WHERE w.id = r.id`;
}

/**
 * The statement that makes the events' watchers due now, creating their rows: it holds their locks to the commit,
 * taken in id order so that two batches never wait on each other in a circle. Returns the watchers.
 */
function upsertWatchersSql(events: readonly NewWatcherEvent[], now: Date): Prisma.Sql {
  const watchers = [...new Map(events.map((event) => [event.watcherSessionId, { session_id: event.watcherSessionId, user_id: event.userId }])).values()];
  return Prisma.sql`INSERT INTO watchers (session_id, user_id, state, next_evaluation_at)
      SELECT r.session_id, r.user_id, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb, ${now.toISOString()}::timestamp(3)
        FROM jsonb_to_recordset(${JSON.stringify(watchers)}::jsonb) AS r(session_id text, user_id text) ORDER BY r.session_id
      ON CONFLICT (session_id) DO UPDATE SET next_evaluation_at = LEAST(COALESCE(watchers.next_evaluation_at, EXCLUDED.next_evaluation_at), EXCLUDED.next_evaluation_at)
      RETURNING session_id, user_id, state, seq`;
}

/** The statement that inserts the events new to their watchers (UNIQUE(watcher, source event)). */
function insertEventsSql(events: readonly NewWatcherEvent[], now: Date): Prisma.Sql {
  const rows = events.map((item) => ({
    id: `${item.watcherSessionId}:${item.sourceEventId}`,
    watcher_session_id: item.watcherSessionId,
    source_event_id: item.sourceEventId,
    event: eventToJson(item.event),
    subscription_ids: item.subscriptionIds,
    trace_parent: item.traceParent,
  }));
  return Prisma.sql`INSERT INTO watcher_events (id, watcher_session_id, source_event_id, event, subscription_ids, status, received_at, trace_parent)
      SELECT r.id, r.watcher_session_id, r.source_event_id, r.event, r.subscription_ids, 'new', ${now.toISOString()}::timestamp(3), r.trace_parent
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(id text, watcher_session_id text, source_event_id text, event jsonb, subscription_ids jsonb, trace_parent text)
      ON CONFLICT (watcher_session_id, source_event_id) DO NOTHING`;
}

/** A subscription with what its digest or quiet hours hold now. */
export type ListedSubscription = Subscription & { heldCount: number; nextDeliveryAt: Date | null };

export class PrismaWatchStore {
  /** `timings`: the spec's durations and counts unless a benchmark or test shortens them. */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly options: { timings?: DeliveryTimings } = {},
  ) {}

  /** Makes a subscription (or only checks it, with dryRun). Answers it and whether it is the watcher's first. */
  async subscribe(input: { userId: string; watcherSessionId: string; spec: SubscriptionSpec; relay?: string; now: Date; dryRun: boolean }): Promise<{ subscription: Subscription; first: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      await this.#lockWatcher(tx, input.watcherSessionId, input.userId);
      const active = await tx.subscription.count({ where: { watcherSessionId: input.watcherSessionId, endedAt: null } });
      requireRoomFor(active);
      const subscription: Subscription = {
        ...input.spec,
        id: input.dryRun ? '' : newSubscriptionId(),
        userId: input.userId,
        watcherSessionId: input.watcherSessionId,
        relay: input.relay ?? '',
        createdAt: input.now,
        lastDeliveredAt: null,
        endedAt: null,
        endReason: null,
      };
      if (!input.dryRun) {
        const { quietHours, sessions, exclude, events, ...rest } = subscription;
        await tx.subscription.create({ data: { ...rest, sessions: json(sessions), exclude: json(exclude), events: json(events), quietHours: quietHours === null ? undefined : json(quietHours) } });
        // Due now: the planner computes its stalled, all_idle and heartbeat times from here on.
        await tx.watcher.update({ where: { sessionId: input.watcherSessionId }, data: { nextEvaluationAt: input.now } });
      }
      return { subscription, first: active === 0 };
    });
  }

  /** Ends one subscription of the watcher, or every active one; answers the ids ended. */
  async unsubscribe(input: { watcherSessionId: string; subscriptionId: string | null; now: Date }): Promise<string[]> {
    const where = { watcherSessionId: input.watcherSessionId, endedAt: null, ...(input.subscriptionId === null ? {} : { id: input.subscriptionId }) };
    const rows = await this.prisma.subscription.findMany({ where, select: { id: true } });
    if (input.subscriptionId !== null && rows.length === 0) {
      throw subscriptionRefusal('REMOTE_RELAY_NOT_FOUND', `No active subscription ${input.subscriptionId} in this conversation; list_subscriptions shows them.`);
    }
    await this.prisma.subscription.updateMany({ where: { id: { in: rows.map((row) => row.id) } }, data: { endedAt: input.now, endReason: 'unsubscribed' } });
    return rows.map((row) => row.id);
  }

  /** The watcher's active subscriptions and those ended in the last hour, with their held events and when they come. */
  async list(watcherSessionId: string, now: Date): Promise<ListedSubscription[]> {
    const rows = await this.prisma.subscription.findMany({
      where: { watcherSessionId, OR: [{ endedAt: null }, { endedAt: { gte: new Date(now.getTime() - ENDED_LISTED_MS) } }] },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const waiting = await this.prisma.watcherEvent.findMany({
      where: { watcherSessionId, status: { in: ['held', 'released'] } },
      select: { status: true, releaseAt: true, deliverAt: true, heldBy: true },
    });
    const events = waiting.map((event) => ({ ...event, status: event.status as WatcherEvent['status'], heldBy: event.heldBy as WatcherEvent['heldBy'] }));
    const watcher = await this.prisma.watcher.findUnique({ where: { sessionId: watcherSessionId }, select: { state: true } });
    const state = watcher === null ? EMPTY_WATCHER_STATE : stateFromJson(watcher.state);
    return rows
      .map(toSubscription)
      .map((subscription) => ({ ...subscription, ...heldBySubscription(events, subscription.id, state, this.options.timings) }))
      .sort((a, b) => Number(a.endedAt !== null) - Number(b.endedAt !== null));
  }

  /** Every active subscription of the user's conversations, oldest first. */
  async listActiveOfUser(userId: string): Promise<Subscription[]> {
    const rows = await this.prisma.subscription.findMany({ where: { userId, endedAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toSubscription);
  }

  /** Moves every active subscription of `from` to `to`, their held events and own-prompt states with them. */
  async transfer(input: { userId: string; from: string; to: string; now: Date; dryRun: boolean }): Promise<Subscription[]> {
    return this.prisma.$transaction(async (tx) => {
      await this.#lockWatcher(tx, input.to, input.userId);
      const moving = (await tx.subscription.findMany({ where: { watcherSessionId: input.from, userId: input.userId, endedAt: null }, orderBy: { createdAt: 'asc' } })).map(toSubscription);
      const active = await tx.subscription.count({ where: { watcherSessionId: input.to, endedAt: null } });
      requireRoomFor(active, moving.length);
      if (input.dryRun || moving.length === 0) return moving;
      await tx.subscription.updateMany({ where: { id: { in: moving.map((s) => s.id) } }, data: { watcherSessionId: input.to } });
      // Events still waiting move with them; the new watcher is evaluated at once.
      await tx.$executeRaw`UPDATE watcher_events SET watcher_session_id = ${input.to}
        WHERE watcher_session_id = ${input.from} AND status IN ('new', 'held', 'waiting', 'released')
          AND source_event_id NOT IN (SELECT source_event_id FROM watcher_events WHERE watcher_session_id = ${input.to})`;
      await tx.watcher.update({ where: { sessionId: input.to }, data: { nextEvaluationAt: input.now } });
      return moving.map((s) => ({ ...s, watcherSessionId: input.to }));
    });
  }

  /** Records where the watcher stands with its prompt; events held while it waited are planned again. */
  async notePromptState(input: { watcherSessionId: string; messageId: string; state: OwnPromptState; now: Date }): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ state: unknown }[]>`SELECT state FROM watchers WHERE session_id = ${input.watcherSessionId} FOR UPDATE`;
      const row = rows[0];
      if (row === undefined) return;
      const state = stateFromJson(row.state);
      const ownPrompts = { ...state.ownPrompts, [input.messageId]: input.state };
      await tx.watcher.update({ where: { sessionId: input.watcherSessionId }, data: { state: json(stateToJson({ ...state, ownPrompts })), nextEvaluationAt: input.now } });
      if (input.state !== 'waiting') await tx.watcherEvent.updateMany({ where: { watcherSessionId: input.watcherSessionId, status: 'waiting' }, data: { status: 'new' } });
    });
  }

  /** ingestBatch for one message (tests, and callers outside a batch): the active span is the one it came in with. */
  async ingest(consumer: string, messageId: string, input: WatchInput, now: Date): Promise<boolean> {
    return (await this.ingestBatch(consumer, [{ messageId, input, traceParent: activeTraceParent() }], now)).ingested > 0;
  }

  /**
   * Applies bus messages, each once (`consumer`, its id), in one transaction and in their order: stores each event for
   * every watcher whose subscriptions take it (one row per watcher and source event), and evaluates those watchers at
   * once while it holds them, as the planner would (their wake-ups are enqueued: publish them after it resolves); an
   * archive ends subscriptions for the messages after it.
   */
  async ingestBatch(consumer: string, items: readonly IngestItem[], now: Date): Promise<IngestedBatch> {
    return this.prisma.$transaction(async (tx) => {
      const fresh = await processEachOnce(tx, consumer, items.map((item) => item.messageId));
      const taken = items.filter((item) => fresh.delete(item.messageId));
      const stored: NewWatcherEvent[] = [];
      let matching: IngestItem[] = [];
      // Consecutive session events are matched together; an archive changes what the messages after it match.
      const matchPending = async () => {
        stored.push(...(await this.#matchSessionEvents(tx, matching)));
        matching = [];
      };
      for (const item of taken) {
        const { input } = item;
        if (input.type === 'session_events') {
          matching.push(item);
        } else if (input.type === 'archived') {
          await matchPending();
          await this.#endForArchive(tx, input.sessionId, now);
        } else {
          const event = { sourceEventId: input.sourceEventId, event: input.event, subscriptionIds: [] };
          stored.push(...input.watcherSessionIds.map((watcherSessionId) => ({ ...event, watcherSessionId, userId: input.userId, traceParent: item.traceParent })));
        }
      }
      await matchPending();
      const watchers = await this.#storeAll(tx, stored, now);
      const evaluated = await this.#evaluate(tx, watchers, now);
      return { ingested: taken.length, ...evaluated };
    });
  }

  /** The events of session messages for the watchers whose active subscriptions here take them, found in one query. */
  async #matchSessionEvents(tx: Tx, items: readonly IngestItem[]): Promise<NewWatcherEvent[]> {
    const inputs = items.flatMap((item) => (item.input.type === 'session_events' ? [{ ...item.input, traceParent: item.traceParent }] : []));
    if (inputs.length === 0) return [];
    const sessionIds = [...new Set(inputs.map((input) => input.sessionId))];
    // Indexed: a subscription to all sessions by its user, a list by the GIN index on `sessions`; the sessions'
    // titles come in the same statement.
    const lists = Prisma.join(sessionIds.map((id) => Prisma.sql`sessions @> ${JSON.stringify([{ id }])}::jsonb`), ' OR ');
    const rows = await tx.$queryRaw<(SubscriptionRow & { titles: Record<string, string> | null })[]>`
      SELECT ${SUBSCRIPTION_COLUMNS},
             (SELECT json_object_agg(session_id, title) FROM session_activity WHERE session_id = ANY(${sessionIds}::text[])) AS titles
        FROM subscriptions
       WHERE ended_at IS NULL AND relay = '' AND user_id = ANY(${[...new Set(inputs.map((input) => input.userId))]}::text[])
         AND (scope = 'all' OR ${lists})`;
    if (rows.length === 0) return [];
    const subscriptions = rows.map(toSubscription);
    const titles = new Map(Object.entries(rows[0]!.titles ?? {}));
    const made = new Map<string, NewWatcherEvent>();
    for (const input of inputs) {
      for (const candidate of input.candidates) {
        const taking = subscriptions.filter((s) => s.userId === input.userId && takesEvent(s, input.sessionId, candidate.kind, candidate.text));
        for (const subscription of taking) {
          const key = `${subscription.watcherSessionId}\u0000${candidate.sourceEventId}`;
          const existing = made.get(key);
          if (existing) {
            existing.subscriptionIds.push(subscription.id);
            continue;
          }
          const listedTitle = subscription.sessions.find((session) => session.id === input.sessionId)?.title;
          made.set(key, {
            watcherSessionId: subscription.watcherSessionId,
            userId: input.userId,
            sourceEventId: candidate.sourceEventId,
            event: withTitle(candidate, input.sessionId, titles.get(input.sessionId) ?? listedTitle ?? input.sessionId),
            subscriptionIds: [subscription.id],
            traceParent: input.traceParent,
          });
        }
      }
    }
    return [...made.values()];
  }

  /** Evaluates one due watcher, if any is free; false when none is (tests step the planner with it). */
  async evaluateNextDue(now: Date): Promise<boolean> {
    return (await this.evaluateDue(now, 1)).evaluated > 0;
  }

  /**
   * Evaluates up to `limit` due watchers that no other replica holds (`FOR UPDATE SKIP LOCKED`), in one transaction:
   * plans, gathers and enqueues their wake-ups. Publish them after it resolves (the outbox is the safety net).
   */
  async evaluateDue(now: Date, limit: number): Promise<PlanningPass> {
    return this.prisma.$transaction(async (tx) => {
      const due = await tx.$queryRaw<DueWatcherRow[]>`
        SELECT session_id, user_id, state, seq FROM watchers
         WHERE next_evaluation_at <= ${now.toISOString()}::timestamp(3)
         ORDER BY next_evaluation_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
      if (due.length === 0) return { evaluated: 0, wakeUps: 0 };
      return { evaluated: due.length, wakeUps: (await this.#evaluate(tx, due, now)).wakeUps };
    });
  }

  /** When the next watcher is due (null: none waits on time); the planner sleeps until then. */
  async nextDueAt(): Promise<Date | null> {
    const rows = await this.prisma.$queryRaw<{ at: Date | null }[]>`SELECT min(next_evaluation_at) AS at FROM watchers`;
    return rows[0]?.at ?? null;
  }

  /**
   * Evaluates the locked watchers with a fixed number of statements, whatever their number; answers the wake-ups
   * enqueued and when the first of them is due again.
   */
  async #evaluate(tx: Tx, watchers: readonly DueWatcherRow[], now: Date): Promise<{ wakeUps: number; nextDueAt: Date | null }> {
    if (watchers.length === 0) return { wakeUps: 0, nextDueAt: null };
    let nextDueAt: Date | null = null;
    const ids = watchers.map((watcher) => watcher.session_id);
    // Their active subscriptions serve both the computed events and planning, read with their events in one statement;
    // the events are read again only when computed ones were stored meanwhile. An event of a subscription that ended
    // since (a held event of an unsubscribed subscription) needs one more read.
    const read = await this.#readWatched(tx, ids, true);
    const activeRows = read.subscriptions;
    const active = groupBy(activeRows, (subscription) => subscription.watcherSessionId);
    const computed = await this.#computeEvents(tx, watchers, active, now);
    const eventRows = computed.stored > 0 ? (await this.#readWatched(tx, ids, false)).events : read.events;
    const computedNextDue = computed.nextDueAt;
    const events = groupBy(eventRows, (row) => row.watcherSessionId);
    const known = new Set(activeRows.map((subscription) => subscription.id));
    const missing = [...new Set(eventRows.flatMap((row) => row.event.subscriptionIds))].filter((id) => !known.has(id));
    const others = missing.length === 0 ? [] : (await tx.$queryRaw<SubscriptionRow[]>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = ANY(${missing}::text[])`).map(toSubscription);
    const views = new Map([...activeRows, ...others].map((s) => [s.id, deliveryView(s)]));

    const changed: WatcherEvent[] = [];
    const ended: string[] = [];
    const delivered: string[] = [];
    const wakeUps: { watcher: DueWatcherRow; wakeUp: PlannedWakeUp }[] = [];
    const saved: { session_id: string; state: unknown; seq: number; next_evaluation_at: string | null }[] = [];
    for (const watcher of watchers) {
      const result = evaluateWatcher({
        watcherSessionId: watcher.session_id,
        now,
        state: stateFromJson(watcher.state),
        seq: watcher.seq,
        events: (events.get(watcher.session_id) ?? []).map((row) => row.event),
        subscriptions: views,
        ...(this.options.timings === undefined ? {} : { timings: this.options.timings }),
      });
      changed.push(...result.events);
      ended.push(...result.endSubscriptionIds);
      delivered.push(...result.deliveredSubscriptionIds);
      if (result.wakeUp !== null) wakeUps.push({ watcher, wakeUp: result.wakeUp });
      const next = earliest(result.nextEvaluationAt, computedNextDue.get(watcher.session_id) ?? null);
      nextDueAt = earliest(nextDueAt, next);
      saved.push({ session_id: watcher.session_id, state: stateToJson(result.state), seq: result.seq, next_evaluation_at: next?.toISOString() ?? null });
    }
    await this.#enqueueWakeUps(tx, wakeUps, new Map(eventRows.map((row) => [row.event.id, row.traceParent])));
    // The planned events, the subscriptions a once fired or a wake-up reached, and the watchers, in one statement.
    const at = now.toISOString();
    const touched = [...new Set([...ended, ...delivered])];
    const writes = [
      ...(changed.length === 0 ? [] : [Prisma.sql`events AS (${updateEventsSql(changed)})`]),
      ...(touched.length === 0
        ? []
        : [
            Prisma.sql`subscriptions_done AS (UPDATE subscriptions
                SET ended_at = CASE WHEN id = ANY(${ended}::text[]) AND ended_at IS NULL THEN ${at}::timestamp(3) ELSE ended_at END,
                    end_reason = CASE WHEN id = ANY(${ended}::text[]) AND ended_at IS NULL THEN ${'once_fired' satisfies EndReason} ELSE end_reason END,
                    last_delivered_at = CASE WHEN id = ANY(${delivered}::text[]) THEN ${at}::timestamp(3) ELSE last_delivered_at END
              WHERE id = ANY(${touched}::text[]))`,
          ]),
    ];
    await tx.$executeRaw`${writes.length === 0 ? Prisma.empty : Prisma.sql`WITH ${Prisma.join(writes, ', ')}`}
      UPDATE watchers AS w SET state = r.state, seq = r.seq, next_evaluation_at = r.next_evaluation_at
        FROM jsonb_to_recordset(${JSON.stringify(saved)}::jsonb) AS r(session_id text, state jsonb, seq int, next_evaluation_at timestamp(3))
       WHERE w.session_id = r.session_id`;
    return { wakeUps: wakeUps.length, nextDueAt };
  }

  /**
   * The wake-ups' deliver_wakeup commands, in one statement. The planner runs outside any trace; each wake-up starts
   * one, linked to the trace of each event it carries (`traceParents`: by event row id).
   */
  async #enqueueWakeUps(tx: Tx, wakeUps: readonly { watcher: DueWatcherRow; wakeUp: PlannedWakeUp }[], traceParents: ReadonlyMap<string, string | null>): Promise<void> {
    if (wakeUps.length === 0) return;
    const entries: OutboxEntry[] = [];
    for (const { watcher, wakeUp } of wakeUps) {
      const attributes = { [Attr.SESSION_ID]: watcher.session_id, [Attr.USER_ID]: watcher.user_id, [Attr.WAKEUP_ID]: wakeUp.wakeupId, [Attr.WAKEUP_EVENTS]: wakeUp.sourceEventIds.length };
      const links = linksTo(wakeUp.eventIds.map((id) => traceParents.get(id)));
      // The span covers the wake-up's making; the command continues it.
      await inNewTrace('subscription', 'wake-up', { attributes, links }, async () => {
        entries.push({
          subject: DELIVER_WAKEUP_SUBJECT,
          id: wakeUp.wakeupId,
          trace: context.active(),
          payload: {
            wakeupId: wakeUp.wakeupId,
            watcherSessionId: watcher.session_id,
            userId: watcher.user_id,
            seq: String(wakeUp.seq),
            text: wakeUp.text,
            sourceEventIds: wakeUp.sourceEventIds,
          },
        });
      });
    }
    await enqueueAll(tx, entries);
  }

  /**
   * A paired relay's events for one of its subscriptions: those the subscription takes are stored for its watcher
   * once per (subscription, event id). Replayed ones are counted for the link_restored line. An archive there of a
   * session it lists takes that session off the list, after the batch's rows are stored; a list left empty ends the
   * subscription (`ended`). Answers how many were new and how many it had taken before.
   */
  async ingestRemote(input: { subscriptionId: string; relay: string; events: readonly RemoteEventInput[]; replayed: boolean; dropped: number; now: Date }): Promise<{ accepted: number; duplicates: number; ended: boolean }> {
    const candidates = parseRemoteEvents(input.relay, input.events, input.replayed ? { dropped: Math.max(0, input.dropped) } : null);
    const archived = remoteArchives(input.events);
    return this.prisma.$transaction(async (tx) => {
      const subscription = await this.#relaySubscription(tx, input.subscriptionId, input.relay);
      const taken = candidates.filter((candidate) => takesRemoteEvent(subscription, candidate));
      const accepted =
        taken.length === 0
          ? 0
          : await this.#store(
              tx,
              subscription.watcherSessionId,
              subscription.userId,
              taken.map((candidate) => ({ sourceEventId: remoteSourceId(subscription.id, candidate.eventId), event: candidate.event, subscriptionIds: [subscription.id] })),
              input.now,
            );
      if (input.replayed && accepted > 0) await tx.subscription.update({ where: { id: subscription.id }, data: { replayedPending: { increment: accepted } } });
      const left = afterRemoteArchives(subscription, archived);
      if (left !== null) {
        await tx.subscription.update({
          where: { id: subscription.id },
          data: left.ended ? { endedAt: input.now, endReason: 'session_archived' satisfies EndReason } : { sessions: json(left.sessions) },
        });
      }
      return { accepted, duplicates: taken.length - accepted, ended: left?.ended ?? false };
    });
  }

  /**
   * The link to the subscription's relay went down or came back at `at`: a link_lost row, or a link_restored line
   * with the replayed events taken since. Answers false when the link already was in that state.
   */
  async reportLinkState(input: { subscriptionId: string; relay: string; online: boolean; at: Date; now: Date }): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const subscription = await this.#relaySubscription(tx, input.subscriptionId, input.relay);
      const row = await tx.subscription.findUniqueOrThrow({ where: { id: subscription.id }, select: { linkOnline: true, replayedPending: true } });
      if (row.linkOnline === input.online) return false;
      const base = { id: `link:${subscription.id}:${input.online ? 'restored' : 'lost'}:${input.at.toISOString()}`, occurredAt: input.at, relay: input.relay };
      const event: RelayEvent = input.online ? { ...base, kind: 'link_restored', replayedCount: row.replayedPending, heldCount: 0 } : { ...base, kind: 'link_lost' };
      await tx.subscription.update({ where: { id: subscription.id }, data: { linkOnline: input.online, linkChangedAt: input.at, ...(input.online ? { replayedPending: 0 } : {}) } });
      await this.#store(tx, subscription.watcherSessionId, subscription.userId, [{ sourceEventId: event.id, event, subscriptionIds: [subscription.id] }], input.now);
      return true;
    });
  }

  /** Ends the active subscriptions watching `relay` (of one user, or of all when userId is null): it was unpaired. */
  async endRelaySubscriptions(input: { userId: string | null; relay: string; now: Date }): Promise<string[]> {
    const where = { relay: input.relay, endedAt: null, ...(input.userId === null ? {} : { userId: input.userId }) };
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.subscription.findMany({ where, select: { id: true } });
      await tx.subscription.updateMany({ where: { id: { in: rows.map((row) => row.id) } }, data: { endedAt: input.now, endReason: 'unpaired' satisfies EndReason } });
      return rows.map((row) => row.id);
    });
  }

  /**
   * The watched side: stalled, all_idle and the heartbeat due now for a paired relay's subscription to our sessions,
   * from the session activity here (nothing is stored); answers when to ask again.
   */
  async computeRemoteWatch(watch: RemoteWatchSpec, now: Date): Promise<{ events: ComputedRemoteEvent[]; nextDueAt: Date | null }> {
    const where = watch.scope === 'all' ? { userId: watch.userId } : { sessionId: { in: watch.sessions.map((session) => session.id) }, userId: watch.userId };
    const activity = (await this.prisma.sessionActivity.findMany({ where })).map(toSessionActivity);
    return computeRemoteWatchEvents(watch, activity, now);
  }

  /** The active subscription `id` watching `relay`, locked; NOT_FOUND otherwise. */
  async #relaySubscription(tx: Tx, id: string, relay: string): Promise<Subscription> {
    await tx.$queryRaw`SELECT id FROM subscriptions WHERE id = ${id} FOR UPDATE`;
    const row = await tx.subscription.findUnique({ where: { id } });
    if (row === null || row.endedAt !== null || row.relay === '' || row.relay !== relay) {
      throw subscriptionRefusal('REMOTE_RELAY_NOT_FOUND', `No active subscription ${id} to relay ${relay} on this relay.`);
    }
    return toSubscription(row);
  }

  /**
   * Stores what stalled, all_idle and the heartbeat make now for the watchers' subscriptions here (each under its
   * deterministic id, so it is made once), with one read of the session activity and one insert for them all; answers
   * when each watcher needs computing again and how many events were new.
   */
  async #computeEvents(
    tx: Tx,
    watchers: readonly DueWatcherRow[],
    active: ReadonlyMap<string, readonly Subscription[]>,
    now: Date,
  ): Promise<{ nextDueAt: Map<string, Date | null>; stored: number }> {
    const computing = watchers.flatMap((watcher) => {
      const subscriptions = (active.get(watcher.session_id) ?? []).filter((subscription) => subscription.relay === '' && computesEvents(subscription));
      if (subscriptions.length === 0) return [];
      // A subscription to all sessions needs every session of the user; lists need only theirs.
      const listed = subscriptions.some((subscription) => subscription.scope === 'all') ? null : new Set(subscriptions.flatMap((subscription) => subscription.sessions.map((session) => session.id)));
      return [{ watcher, subscriptions, listed }];
    });
    const nextDueAt = new Map<string, Date | null>();
    if (computing.length === 0) return { nextDueAt, stored: 0 };
    const users = [...new Set(computing.flatMap(({ watcher, listed }) => (listed === null ? [watcher.user_id] : [])))];
    const sessions = [...new Set(computing.flatMap(({ listed }) => [...(listed ?? [])]))];
    const activity = (await tx.sessionActivity.findMany({ where: { OR: [{ userId: { in: users } }, { sessionId: { in: sessions } }] } })).map(toSessionActivity);
    const traceParent = activeTraceParent();
    const made: NewWatcherEvent[] = [];
    for (const { watcher, subscriptions, listed } of computing) {
      const theirs = activity.filter((row) => (listed === null ? row.userId === watcher.user_id : listed.has(row.sessionId)));
      let next: Date | null = null;
      for (const subscription of subscriptions) {
        const computed = computeEvents(subscription, theirs, now);
        next = earliest(next, computed.nextDueAt);
        made.push(...computed.events.map((item) => ({ ...item, subscriptionIds: [subscription.id], watcherSessionId: watcher.session_id, userId: watcher.user_id, traceParent })));
      }
      nextDueAt.set(watcher.session_id, next);
    }
    return { nextDueAt, stored: await this.#insertEvents(tx, made, now) };
  }

  /**
   * The watchers' active subscriptions (unless `withSubscriptions` is false) and their events still to plan, oldest
   * first, in one statement.
   */
  async #readWatched(tx: Tx, ids: readonly string[], withSubscriptions: boolean): Promise<WatchedRead> {
    const subscriptions = withSubscriptions
      ? Prisma.sql`SELECT 'subscription' AS kind, 0 AS ord, to_jsonb(s) AS row
           FROM (SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE watcher_session_id = ANY(${ids}::text[]) AND ended_at IS NULL) s
         UNION ALL `
      : Prisma.empty;
    const rows = await tx.$queryRaw<{ kind: 'subscription' | 'event'; row: Record<string, unknown> }[]>`${subscriptions}
      SELECT 'event' AS kind, (row_number() OVER (ORDER BY e."receivedAt", e.id))::int AS ord, to_jsonb(e) AS row
        FROM (SELECT ${EVENT_COLUMNS} FROM watcher_events WHERE watcher_session_id = ANY(${ids}::text[]) AND status IN ('new', 'held', 'released')) e
      ORDER BY kind, ord`;
    const read: WatchedRead = { subscriptions: [], events: [] };
    for (const { kind, row } of rows) {
      if (kind === 'subscription') {
        read.subscriptions.push(toSubscription({ ...row, createdAt: fromSqlJson(row.createdAt)!, lastDeliveredAt: fromSqlJson(row.lastDeliveredAt), endedAt: fromSqlJson(row.endedAt) } as SubscriptionRow));
      } else {
        const event = { ...row, releaseAt: fromSqlJson(row.releaseAt), deliverAt: fromSqlJson(row.deliverAt), receivedAt: fromSqlJson(row.receivedAt)! } as EventRow;
        read.events.push({ watcherSessionId: event.watcherSessionId, traceParent: event.traceParent, event: toWatcherEvent(event) });
      }
    }
    return read;
  }

  /** The watcher's row exists and is locked for the rest of the transaction. */
  async #lockWatcher(tx: Tx, sessionId: string, userId: string): Promise<void> {
    await tx.$executeRaw`INSERT INTO watchers (session_id, user_id, state) VALUES (${sessionId}, ${userId}, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb)
      ON CONFLICT (session_id) DO NOTHING`;
    await tx.$queryRaw`SELECT session_id FROM watchers WHERE session_id = ${sessionId} FOR UPDATE`;
  }

  /** Stores events for one watcher, with the active span's trace, and makes it due; answers how many were new. */
  async #store(tx: Tx, watcherSessionId: string, userId: string, events: readonly NewEvent[], now: Date): Promise<number> {
    const traceParent = activeTraceParent();
    const rows = events.map((event) => ({ ...event, watcherSessionId, userId, traceParent }));
    await this.#upsertWatchers(tx, rows, now);
    return this.#insertEvents(tx, rows, now);
  }

  /**
   * Stores events (a source event a watcher already has is left alone) and makes their watchers due, in one statement;
   * answers the watchers, locked to the commit.
   */
  async #storeAll(tx: Tx, events: readonly NewWatcherEvent[], now: Date): Promise<DueWatcherRow[]> {
    if (events.length === 0) return [];
    // The events' foreign key to their watchers is checked at the end of the statement, when the watchers exist.
    return tx.$queryRaw<DueWatcherRow[]>`WITH w AS (${upsertWatchersSql(events, now)}), e AS (${insertEventsSql(events, now)})
      SELECT session_id, user_id, state, seq FROM w`;
  }

  /** Makes the events' watchers due now, creating their rows (events reference them); answers them, locked to the commit. */
  async #upsertWatchers(tx: Tx, events: readonly NewWatcherEvent[], now: Date): Promise<DueWatcherRow[]> {
    if (events.length === 0) return [];
    return tx.$queryRaw<DueWatcherRow[]>(upsertWatchersSql(events, now));
  }

  /** Inserts the events that are new to their watchers (UNIQUE(watcher, source event)) in one statement; answers how many were. */
  async #insertEvents(tx: Tx, events: readonly NewWatcherEvent[], now: Date): Promise<number> {
    if (events.length === 0) return 0;
    return tx.$executeRaw(insertEventsSql(events, now));
  }

  /** Archive: the session's own subscriptions end, and it leaves every list that names it (a list left empty ends). */
  async #endForArchive(tx: Tx, sessionId: string, now: Date): Promise<void> {
    await tx.subscription.updateMany({ where: { watcherSessionId: sessionId, endedAt: null }, data: { endedAt: now, endReason: 'watcher_archived' satisfies EndReason } });
    const naming = (await tx.subscription.findMany({ where: { endedAt: null, scope: 'sessions', sessions: { array_contains: [{ id: sessionId }] } } })).map(toSubscription);
    for (const subscription of naming) {
      const left = subscription.sessions.filter((session) => session.id !== sessionId);
      await tx.subscription.update({
        where: { id: subscription.id },
        data: left.length === 0 ? { endedAt: now, endReason: 'session_archived' satisfies EndReason } : { sessions: json(left) },
      });
    }
  }
}
