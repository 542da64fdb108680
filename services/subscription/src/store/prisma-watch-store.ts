/**
 * Subscriptions, watchers and their events in PostgreSQL. Every decision for a watcher is taken in an
 * interactive transaction that holds the watcher's row (`FOR UPDATE SKIP LOCKED` on watchers that are due),
 * so replicas share watchers without ever planning one twice; a wake-up is an outbox row with the
 * deterministic id `<watcher>:<seq>` written in that same transaction. Events come from this relay's streams
 * (ingest), from a paired relay (ingestRemote, reportLinkState) and from the computed rules (stalled, all_idle,
 * the heartbeat), which each evaluation runs first.
 */
import { enqueue, processOnce } from '@relay/bus';
import { activeTraceParent, Attr, inNewTrace, linksTo } from '@relay/telemetry';
import type { DeliveryTimings, OwnPromptState, RelayEvent } from '../domain/delivery/index.ts';
import { evaluateWatcher, EMPTY_WATCHER_STATE, heldBySubscription, type WatcherEvent } from '../domain/subscriptions/plan-watcher.ts';
import { requireRoomFor, takesEvent, type SubscriptionSpec } from '../domain/subscriptions/subscribe-rules.ts';
import { deliveryView, ENDED_LISTED_MS, newSubscriptionId, type EndReason, type Subscription } from '../domain/subscriptions/subscription.ts';
import { computeEvents, computesEvents } from '../domain/subscriptions/computed-events.ts';
import { afterRemoteArchives, parseRemoteEvents, remoteArchives, remoteSourceId, takesRemoteEvent, type RemoteEventInput } from '../domain/subscriptions/remote-events.ts';
import { computeRemoteWatchEvents, type ComputedRemoteEvent, type RemoteWatchSpec } from '../domain/subscriptions/remote-watch-events.ts';
import type { WatchInput } from '../domain/subscriptions/watch-event.ts';
import { subscriptionRefusal } from '../domain/errors.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { toSessionActivity } from './prisma-session-activity-store.ts';
import { eventFromJson, eventToJson, stateFromJson, stateToJson } from './watch-codec.ts';

type Tx = Prisma.TransactionClient;
type SubscriptionRow = Awaited<ReturnType<PrismaClient['subscription']['findFirstOrThrow']>>;
type EventRow = Awaited<ReturnType<PrismaClient['watcherEvent']['findFirstOrThrow']>>;

/** The subject of the wake-up command the session service consumes. */
export const DELIVER_WAKEUP_SUBJECT = 'relay.subscription.v1.cmd.deliver_wakeup';

const json = (value: unknown) => value as Prisma.InputJsonValue;
const earliest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a.getTime() <= b.getTime() ? a : b);

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
 * Writes the planned events in one statement (a held_by left null keeps the stored one). The event itself is
 * written too: a link_restored line counts the replayed events held when it is planned.
 */
async function updateEvents(tx: Tx, events: readonly WatcherEvent[]): Promise<void> {
  if (events.length === 0) return;
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
  await tx.$executeRaw`UPDATE watcher_events AS w
      SET event = r.event, status = r.status, release_at = r.release_at, deliver_at = r.deliver_at,
          held_by = COALESCE(r.held_by, w.held_by), cap_digest = r.cap_digest, wakeup_id = r.wakeup_id
     FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
       AS r(id text, event jsonb, status text, release_at timestamp(3), deliver_at timestamp(3), held_by jsonb, cap_digest boolean, wakeup_id text)
    WHERE w.id = r.id`;
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

  /**
   * Applies one bus message once (`consumer`, `messageId`): stores each event for every watcher whose
   * subscriptions take it (one row per watcher and source event) and makes those watchers due now.
   */
  async ingest(consumer: string, messageId: string, input: WatchInput, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await processOnce(tx, consumer, messageId))) return false;
      if (input.type === 'archived') {
        await this.#endForArchive(tx, input.sessionId, now);
        return true;
      }
      if (input.type === 'direct') {
        for (const watcher of input.watcherSessionIds) {
          await this.#store(tx, watcher, input.userId, [{ sourceEventId: input.sourceEventId, event: input.event, subscriptionIds: [] }], now);
        }
        return true;
      }
      const subscriptions = (await tx.subscription.findMany({ where: { userId: input.userId, endedAt: null, relay: '' } })).map(toSubscription);
      if (subscriptions.length === 0) return true;
      const activity = await tx.sessionActivity.findUnique({ where: { sessionId: input.sessionId }, select: { title: true } });
      const byWatcher = new Map<string, { sourceEventId: string; event: RelayEvent; subscriptionIds: string[] }[]>();
      for (const candidate of input.candidates) {
        const taking = subscriptions.filter((s) => takesEvent(s, input.sessionId, candidate.kind, candidate.text));
        for (const subscription of taking) {
          const listedTitle = subscription.sessions.find((session) => session.id === input.sessionId)?.title;
          const title = activity?.title ?? listedTitle ?? input.sessionId;
          const event = 'session' in candidate.event ? { ...candidate.event, session: { id: input.sessionId, title } } : candidate.event;
          const list = byWatcher.get(subscription.watcherSessionId) ?? [];
          const existing = list.find((item) => item.sourceEventId === candidate.sourceEventId);
          if (existing) existing.subscriptionIds.push(subscription.id);
          else list.push({ sourceEventId: candidate.sourceEventId, event: event as RelayEvent, subscriptionIds: [subscription.id] });
          byWatcher.set(subscription.watcherSessionId, list);
        }
      }
      for (const [watcher, events] of byWatcher) await this.#store(tx, watcher, input.userId, events, now);
      return true;
    });
  }

  /**
   * Evaluates one due watcher, if any is free: plans, gathers, enqueues its wake-up. Answers false when
   * no watcher is due (or every due one is held by another replica).
   */
  async evaluateNextDue(now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const due = await tx.$queryRaw<{ session_id: string; user_id: string; state: unknown; seq: number }[]>`
        SELECT session_id, user_id, state, seq FROM watchers
         WHERE next_evaluation_at <= ${now.toISOString()}::timestamp(3)
         ORDER BY next_evaluation_at LIMIT 1 FOR UPDATE SKIP LOCKED`;
      const watcher = due[0];
      if (watcher === undefined) return false;
      // The watcher's active subscriptions serve both the computed events and planning; an event of one that ended
      // since (a held event of an unsubscribed subscription) needs one more read.
      const active = (await tx.subscription.findMany({ where: { watcherSessionId: watcher.session_id, endedAt: null } })).map(toSubscription);
      const computedNextDue = await this.#computeEvents(tx, watcher.session_id, watcher.user_id, active, now);
      const events = (
        await tx.watcherEvent.findMany({ where: { watcherSessionId: watcher.session_id, status: { in: ['new', 'held', 'released'] } }, orderBy: [{ receivedAt: 'asc' }, { id: 'asc' }] })
      ).map(toWatcherEvent);
      const known = new Set(active.map((subscription) => subscription.id));
      const missing = [...new Set(events.flatMap((event) => event.subscriptionIds))].filter((id) => !known.has(id));
      const others = missing.length === 0 ? [] : (await tx.subscription.findMany({ where: { id: { in: missing } } })).map(toSubscription);
      const result = evaluateWatcher({
        watcherSessionId: watcher.session_id,
        now,
        state: stateFromJson(watcher.state),
        seq: watcher.seq,
        events,
        subscriptions: new Map([...active, ...others].map((s) => [s.id, deliveryView(s)])),
        ...(this.options.timings === undefined ? {} : { timings: this.options.timings }),
      });
      await updateEvents(tx, result.events);
      if (result.endSubscriptionIds.length > 0) {
        await tx.subscription.updateMany({ where: { id: { in: result.endSubscriptionIds }, endedAt: null }, data: { endedAt: now, endReason: 'once_fired' satisfies EndReason } });
      }
      if (result.deliveredSubscriptionIds.length > 0) {
        await tx.subscription.updateMany({ where: { id: { in: result.deliveredSubscriptionIds } }, data: { lastDeliveredAt: now } });
      }
      if (result.wakeUp !== null) {
        const { wakeUp } = result;
        // The planner runs outside any trace; the wake-up starts one, linked to the trace of each event it carries.
        const sources = await tx.$queryRaw<{ trace_parent: string | null }[]>`SELECT trace_parent FROM watcher_events
          WHERE watcher_session_id = ${watcher.session_id} AND source_event_id = ANY(${[...wakeUp.sourceEventIds]}::text[])`;
        const attributes = { [Attr.SESSION_ID]: watcher.session_id, [Attr.USER_ID]: watcher.user_id, [Attr.WAKEUP_ID]: wakeUp.wakeupId, [Attr.WAKEUP_EVENTS]: wakeUp.sourceEventIds.length };
        await inNewTrace('subscription', 'wake-up', { attributes, links: linksTo(sources.map((source) => source.trace_parent)) }, () => enqueue(tx, {
          subject: DELIVER_WAKEUP_SUBJECT,
          id: wakeUp.wakeupId,
          payload: {
            wakeupId: wakeUp.wakeupId,
            watcherSessionId: watcher.session_id,
            userId: watcher.user_id,
            seq: String(wakeUp.seq),
            text: wakeUp.text,
            sourceEventIds: wakeUp.sourceEventIds,
          },
        }));
      }
      await tx.watcher.update({
        where: { sessionId: watcher.session_id },
        data: { state: json(stateToJson(result.state)), seq: result.seq, nextEvaluationAt: earliest(result.nextEvaluationAt, computedNextDue) },
      });
      return true;
    });
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
   * Stores what stalled, all_idle and the heartbeat make now for the watcher's subscriptions here (each under its
   * deterministic id, so it is made once); answers when they need computing again.
   */
  async #computeEvents(tx: Tx, watcherSessionId: string, userId: string, active: readonly Subscription[], now: Date): Promise<Date | null> {
    const subscriptions = active.filter((subscription) => subscription.relay === '' && computesEvents(subscription));
    if (subscriptions.length === 0) return null;
    // A subscription to all sessions needs every session of the user; lists need only theirs.
    const listed = subscriptions.some((subscription) => subscription.scope === 'all') ? null : [...new Set(subscriptions.flatMap((subscription) => subscription.sessions.map((session) => session.id)))];
    const activity = (await tx.sessionActivity.findMany({ where: listed === null ? { userId } : { sessionId: { in: listed } } })).map(toSessionActivity);
    let next: Date | null = null;
    const made: { sourceEventId: string; event: RelayEvent; subscriptionIds: string[] }[] = [];
    for (const subscription of subscriptions) {
      const computed = computeEvents(subscription, activity, now);
      next = earliest(next, computed.nextDueAt);
      made.push(...computed.events.map((item) => ({ ...item, subscriptionIds: [subscription.id] })));
    }
    await this.#insertEvents(tx, watcherSessionId, made, now);
    return next;
  }

  /** The watcher's row exists and is locked for the rest of the transaction. */
  async #lockWatcher(tx: Tx, sessionId: string, userId: string): Promise<void> {
    await tx.$executeRaw`INSERT INTO watchers (session_id, user_id, state) VALUES (${sessionId}, ${userId}, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb)
      ON CONFLICT (session_id) DO NOTHING`;
    await tx.$queryRaw`SELECT session_id FROM watchers WHERE session_id = ${sessionId} FOR UPDATE`;
  }

  /**
   * Stores events for the watcher (a source event already there is left alone) and makes it due; answers how many
   * were new. The upsert makes the watcher's row (events reference it) and holds its lock to the commit.
   */
  async #store(tx: Tx, watcherSessionId: string, userId: string, events: { sourceEventId: string; event: RelayEvent; subscriptionIds: string[] }[], now: Date): Promise<number> {
    const at = now.toISOString();
    await tx.$executeRaw`INSERT INTO watchers (session_id, user_id, state, next_evaluation_at)
      VALUES (${watcherSessionId}, ${userId}, ${JSON.stringify(stateToJson(EMPTY_WATCHER_STATE))}::jsonb, ${at}::timestamp(3))
      ON CONFLICT (session_id) DO UPDATE SET next_evaluation_at = LEAST(COALESCE(watchers.next_evaluation_at, EXCLUDED.next_evaluation_at), EXCLUDED.next_evaluation_at)`;
    return this.#insertEvents(tx, watcherSessionId, events, now);
  }

  /** Inserts the events that are new to the watcher (UNIQUE(watcher, source event)) in one statement; answers how many were. */
  async #insertEvents(tx: Tx, watcherSessionId: string, events: { sourceEventId: string; event: RelayEvent; subscriptionIds: string[] }[], now: Date): Promise<number> {
    if (events.length === 0) return 0;
    const rows = events.map((item) => ({
      id: `${watcherSessionId}:${item.sourceEventId}`,
      source_event_id: item.sourceEventId,
      event: eventToJson(item.event),
      subscription_ids: item.subscriptionIds,
    }));
    // The span of the message or call the events came with (the consumer's, the gRPC call's).
    const traceParent = activeTraceParent();
    return tx.$executeRaw`INSERT INTO watcher_events (id, watcher_session_id, source_event_id, event, subscription_ids, status, received_at, trace_parent)
      SELECT r.id, ${watcherSessionId}, r.source_event_id, r.event, r.subscription_ids, 'new', ${now.toISOString()}::timestamp(3), ${traceParent}
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id text, source_event_id text, event jsonb, subscription_ids jsonb)
      ON CONFLICT (watcher_session_id, source_event_id) DO NOTHING`;
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
