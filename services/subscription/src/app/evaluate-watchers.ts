/**
 * Planning: each evaluation of a watcher runs the computed rules (stalled, all_idle, the heartbeat) first, then the
 * pure evaluateWatcher over its events, in the transaction that holds the watcher's row, so replicas share watchers
 * without ever planning one twice. A wake-up is an outbox row with the deterministic id `<watcher>:<seq>` written in
 * that same transaction, and published once it commits (WatchStore.pipelineTransaction).
 */
import { activeTraceParent } from '@relay/telemetry';
import { computeEvents, computesEvents } from '../domain/subscriptions/computed-events.ts';
import { evaluateWatcher, watcherEventId, type WatcherEvent } from '../domain/subscriptions/plan-watcher.ts';
import { deliveryView, type Subscription } from '../domain/subscriptions/subscription.ts';
import type { DueWatcher, NewWatcherEvent, PipelineTransaction, PlanningWrites, WatchDeps, WatchedEvent, WatcherWakeUp } from './ports.ts';

/** What one planning transaction did: how many watchers it evaluated. */
export type PlanningPass = { evaluated: number };

const earliest = (a: Date | null, b: Date | null): Date | null => (a === null ? b : b === null || a.getTime() <= b.getTime() ? a : b);

const groupBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

/**
 * Evaluates up to `limit` due watchers that no other replica holds, in one transaction: plans, gathers and enqueues
 * their wake-ups.
 */
export async function evaluateDueWatchers(deps: WatchDeps, now: Date, limit: number): Promise<PlanningPass> {
  return deps.store.pipelineTransaction(async (tx) => {
    const due = await tx.lockDueWatchers(now, limit);
    if (due.length > 0) await evaluateWatchers(deps, tx, due, now);
    return { evaluated: due.length };
  });
}

/** Evaluates one due watcher, if any is free; false when none is (tests step the planner with it). */
export async function evaluateNextDue(deps: WatchDeps, now: Date): Promise<boolean> {
  return (await evaluateDueWatchers(deps, now, 1)).evaluated > 0;
}

/**
 * Evaluates the watchers `tx` holds with a fixed number of statements, whatever their number; answers the wake-ups
 * enqueued and when the first of them is due again. `arriving`: events for them not stored yet, planned with the
 * stored ones and then written once, as planned (one a watcher already has is left alone).
 */
export async function evaluateWatchers(
  deps: WatchDeps,
  tx: PipelineTransaction,
  watchers: readonly DueWatcher[],
  now: Date,
  arriving: readonly NewWatcherEvent[] = [],
): Promise<{ nextDueAt: Date | null }> {
  if (watchers.length === 0) return { nextDueAt: null };
  let nextDueAt: Date | null = null;
  const ids = watchers.map((watcher) => watcher.sessionId);
  // Their active subscriptions serve both the computed events and planning, read with their events (and which of the
  // arriving ones they have) in one statement; the events are read again only when computed ones were stored
  // meanwhile. An event of a subscription that ended since (a held event of an unsubscribed subscription) needs one
  // more read.
  const read = await tx.readWatched(
    ids,
    true,
    arriving.map((item) => watcherEventId(item.watcherSessionId, item.sourceEventId)),
  );
  const arrivedById = new Map<string, WatchedEvent>();
  for (const item of arriving) {
    const id = watcherEventId(item.watcherSessionId, item.sourceEventId);
    if (read.stored.has(id) || arrivedById.has(id)) continue;
    arrivedById.set(id, { watcherSessionId: item.watcherSessionId, traceParent: item.traceParent, event: arrivedEvent(id, item) });
  }
  const arrived = [...arrivedById.values()];
  const activeRows = read.subscriptions;
  const active = groupBy(activeRows, (subscription) => subscription.watcherSessionId);
  const computed = await storeComputedEvents(tx, watchers, active, now);
  const eventRows = [...(computed.stored > 0 ? (await tx.readWatched(ids, false)).events : read.events), ...arrived];
  const computedNextDue = computed.nextDueAt;
  const events = groupBy(eventRows, (row) => row.watcherSessionId);
  const known = new Set(activeRows.map((subscription) => subscription.id));
  const missing = [...new Set(eventRows.flatMap((row) => row.event.subscriptionIds))].filter((id) => !known.has(id));
  const others = missing.length === 0 ? [] : await tx.subscriptionsById(missing);
  const views = new Map([...activeRows, ...others].map((s) => [s.id, deliveryView(s)]));

  const changed: WatcherEvent[] = [];
  const ended: string[] = [];
  const delivered: string[] = [];
  const wakeUps: WatcherWakeUp[] = [];
  const saved: PlanningWrites['watchers'][number][] = [];
  for (const watcher of watchers) {
    const result = evaluateWatcher({
      watcherSessionId: watcher.sessionId,
      now,
      state: watcher.state,
      seq: watcher.seq,
      events: (events.get(watcher.sessionId) ?? []).map((row) => row.event),
      subscriptions: views,
      ...(deps.timings === undefined ? {} : { timings: deps.timings }),
    });
    changed.push(...result.events);
    ended.push(...result.endSubscriptionIds);
    delivered.push(...result.deliveredSubscriptionIds);
    if (result.wakeUp !== null) wakeUps.push({ watcher, wakeUp: result.wakeUp });
    const next = earliest(result.nextEvaluationAt, computedNextDue.get(watcher.sessionId) ?? null);
    nextDueAt = earliest(nextDueAt, next);
    saved.push({ sessionId: watcher.sessionId, state: result.state, seq: result.seq, nextEvaluationAt: next });
  }
  await tx.enqueueWakeUps(wakeUps, new Map(eventRows.map((row) => [row.event.id, row.traceParent])));
  const planned = new Map(changed.map((event) => [event.id, event]));
  await tx.savePlanning(
    {
      events: changed.filter((event) => !arrivedById.has(event.id)),
      arrived: arrived.map((row) => ({ ...row, event: planned.get(row.event.id) ?? row.event })),
      endedIds: ended,
      deliveredIds: delivered,
      watchers: saved,
    },
    now,
  );
  return { nextDueAt };
}

/** An arriving event as a new row, before planning. */
function arrivedEvent(id: string, item: NewWatcherEvent): WatcherEvent {
  return {
    id,
    sourceEventId: item.sourceEventId,
    event: item.event,
    subscriptionIds: item.subscriptionIds,
    status: 'new',
    releaseAt: null,
    deliverAt: null,
    heldBy: null,
    capDigest: false,
    wakeupId: null,
  };
}

/**
 * Stores what stalled, all_idle and the heartbeat make now for the watchers' subscriptions here (each under its
 * deterministic id, so it is made once), with one read of the session activity and one insert for them all; answers
 * when each watcher needs computing again and how many events were new.
 */
async function storeComputedEvents(
  tx: PipelineTransaction,
  watchers: readonly DueWatcher[],
  active: ReadonlyMap<string, readonly Subscription[]>,
  now: Date,
): Promise<{ nextDueAt: Map<string, Date | null>; stored: number }> {
  const computing = watchers.flatMap((watcher) => {
    const subscriptions = (active.get(watcher.sessionId) ?? []).filter((subscription) => subscription.relay === '' && computesEvents(subscription));
    if (subscriptions.length === 0) return [];
    // A subscription to all sessions needs every session of the user; lists need only theirs.
    const listed = subscriptions.some((subscription) => subscription.scope === 'all')
      ? null
      : new Set(subscriptions.flatMap((subscription) => subscription.sessions.map((session) => session.id)));
    return [{ watcher, subscriptions, listed }];
  });
  const nextDueAt = new Map<string, Date | null>();
  if (computing.length === 0) return { nextDueAt, stored: 0 };
  const userIds = [...new Set(computing.flatMap(({ watcher, listed }) => (listed === null ? [watcher.userId] : [])))];
  const sessionIds = [...new Set(computing.flatMap(({ listed }) => [...(listed ?? [])]))];
  const activity = await tx.sessionActivity({ userIds, sessionIds });
  const traceParent = activeTraceParent();
  const made: NewWatcherEvent[] = [];
  for (const { watcher, subscriptions, listed } of computing) {
    const theirs = activity.filter((row) => (listed === null ? row.userId === watcher.userId : listed.has(row.sessionId)));
    let next: Date | null = null;
    for (const subscription of subscriptions) {
      const computed = computeEvents(subscription, theirs, now);
      next = earliest(next, computed.nextDueAt);
      made.push(
        ...computed.events.map(({ traceParent: madeBy, ...item }) => ({
          ...item,
          subscriptionIds: [subscription.id],
          watcherSessionId: watcher.sessionId,
          userId: watcher.userId,
          traceParent: madeBy ?? traceParent,
        })),
      );
    }
    nextDueAt.set(watcher.sessionId, next);
  }
  return { nextDueAt, stored: await tx.insertEvents(made, now) };
}
