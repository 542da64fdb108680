/**
 * One evaluation of a watcher, pure: plans its new events and those whose hold ran out with the
 * delivery module (in arrival order, each plan seeing the state the one before left), then gathers
 * every released event that is due into one message. evaluateWatchers (app) runs it while it holds the watcher's
 * row, so replicas never plan one watcher at the same time.
 */
import {
  DEFAULT_DELIVERY_TIMINGS,
  heldDeliveryAt,
  isUrgent,
  planRelease,
  recordDelivery,
  renderWakeUpMessage,
  type DeliverySubscription,
  type DeliveryTimings,
  type HeldBy,
  type RelayEvent,
  type WatcherState,
} from '../delivery/index.ts';

export type WatcherEventStatus = 'new' | 'held' | 'waiting' | 'released' | 'delivered' | 'dropped';

/** An event the watcher's subscriptions took, as stored. */
export type WatcherEvent = {
  id: string;
  sourceEventId: string;
  event: RelayEvent;
  subscriptionIds: string[];
  status: WatcherEventStatus;
  releaseAt: Date | null;
  deliverAt: Date | null;
  heldBy: HeldBy | null;
  capDigest: boolean;
  wakeupId: string | null;
};

/** One message to inject into the watcher. */
export type PlannedWakeUp = { seq: number; wakeupId: string; text: string; eventIds: string[]; sourceEventIds: string[] };

export type WatcherEvaluation = {
  /** Every event whose row changes, as it is now. */
  events: WatcherEvent[];
  wakeUp: PlannedWakeUp | null;
  state: WatcherState;
  seq: number;
  /** Once subscriptions that fired. */
  endSubscriptionIds: string[];
  /** Subscriptions whose non-urgent events the message carried: their digest restarts now. */
  deliveredSubscriptionIds: string[];
  /** When the watcher is due again; null when nothing waits on time. */
  nextEvaluationAt: Date | null;
};

/** The id of the watcher's row of a source event: one row per watcher and source event. */
export function watcherEventId(watcherSessionId: string, sourceEventId: string): string {
  return `${watcherSessionId}:${sourceEventId}`;
}

/** The deterministic id of a watcher's `seq`-th wake-up, also its Nats-Msg-Id. */
export function wakeupIdOf(watcherSessionId: string, seq: number): string {
  return `${watcherSessionId}:${seq}`;
}

/** Plans and gathers what is due for one watcher at `now`. `subscriptions` holds every one its events name. */
export function evaluateWatcher(input: {
  watcherSessionId: string;
  now: Date;
  state: WatcherState;
  seq: number;
  events: readonly WatcherEvent[];
  subscriptions: ReadonlyMap<string, DeliverySubscription>;
  timings?: DeliveryTimings;
}): WatcherEvaluation {
  const { now, watcherSessionId } = input;
  const timings = input.timings ?? DEFAULT_DELIVERY_TIMINGS;
  let state = input.state;
  const current = new Map(input.events.map((event) => [event.id, { ...event }]));
  const changed = new Set<string>();
  const endSubscriptionIds = new Set<string>();

  const toPlan = [...current.values()].filter(
    (event) => event.status === 'new' || (event.status === 'held' && event.releaseAt !== null && event.releaseAt.getTime() <= now.getTime()),
  );
  for (const event of toPlan) {
    const subscriptions = event.subscriptionIds.map((id) => input.subscriptions.get(id)).filter((s): s is DeliverySubscription => s !== undefined);
    if (subscriptions.length === 0 && !isUrgent(event.event.kind)) {
      event.status = 'dropped';
      changed.add(event.id);
      continue;
    }
    const plan = planRelease(event.event, subscriptions, state, now, timings);
    if (event.status === 'new') for (const id of plan.endsSubscriptionIds) endSubscriptionIds.add(id);
    changed.add(event.id);
    if (plan.action === 'drop') {
      event.status = 'dropped';
    } else if (plan.action === 'hold_while_waiting') {
      event.status = 'waiting';
    } else if (plan.action === 'hold') {
      Object.assign(event, { status: 'held', releaseAt: plan.releaseAt, heldBy: plan.heldBy });
    } else {
      const delivery = plan.delivery;
      state = delivery.watcherState;
      Object.assign(event, {
        status: 'released',
        releaseAt: plan.releaseAt,
        deliverAt: delivery.deliverAt,
        heldBy: plan.heldBy,
        capDigest: delivery.capDigest,
      });
      const takes = delivery.takesWindowClosingAt;
      if (takes !== null) {
        // The urgent event takes the open window's events along.
        for (const other of current.values()) {
          if (other.status === 'released' && other.deliverAt?.getTime() === takes.getTime()) {
            other.deliverAt = delivery.deliverAt;
            changed.add(other.id);
          }
        }
      }
    }
  }

  // A link_restored line says how many of the replayed events of its subscription wait for a digest or quiet hours:
  // counted once they are planned (the replayed batch comes before the line, and may be planned with it).
  for (const event of toPlan) {
    if (event.event.kind !== 'link_restored' || event.status === 'dropped') continue;
    const heldCount = [...current.values()].filter(
      (other) => other.event.replayed !== undefined && other.status === 'held' && other.subscriptionIds.some((id) => event.subscriptionIds.includes(id)),
    ).length;
    event.event = { ...event.event, heldCount };
  }

  // No echo, checked again when the message goes: the watcher's call or wait may have returned the finished reply
  // (NotePromptState) after the turn_end was planned; the coalescing window leaves it that time.
  for (const event of current.values()) {
    const prompt = event.event.kind === 'turn_end' ? event.event.promptMessageId : null;
    const once = event.subscriptionIds.some((id) => input.subscriptions.get(id)?.once === true);
    if (event.status === 'released' && prompt !== null && state.ownPrompts[prompt] === 'reply_returned' && !once) {
      event.status = 'dropped';
      changed.add(event.id);
    }
  }

  const due = [...current.values()].filter((event) => event.status === 'released' && event.deliverAt !== null && event.deliverAt.getTime() <= now.getTime());
  let wakeUp: PlannedWakeUp | null = null;
  let seq = input.seq;
  const delivered = new Set<string>();
  if (due.length > 0) {
    seq += 1;
    const wakeupId = wakeupIdOf(watcherSessionId, seq);
    const text = renderWakeUpMessage(
      { items: due.map((event) => ({ event: event.event, heldBy: event.heldBy })), capDigest: due.some((event) => event.capDigest) },
      timings,
    );
    for (const event of due) {
      // deliverAt becomes when it went: the instant the cap's log records for this message.
      Object.assign(event, { status: 'delivered', wakeupId, deliverAt: now });
      changed.add(event.id);
      if (!isUrgent(event.event.kind)) for (const id of event.subscriptionIds) delivered.add(id);
    }
    state = recordDelivery(state, now, timings);
    const ordered = [...due].sort((a, b) => a.event.occurredAt.getTime() - b.event.occurredAt.getTime());
    wakeUp = { seq, wakeupId, text, eventIds: ordered.map((event) => event.id), sourceEventIds: ordered.map((event) => event.sourceEventId) };
  }

  let next: number | null = null;
  for (const event of current.values()) {
    const at = event.status === 'held' ? event.releaseAt : event.status === 'released' ? event.deliverAt : null;
    if (at !== null && (next === null || at.getTime() < next)) next = at.getTime();
  }
  return {
    events: [...changed].map((id) => current.get(id) as WatcherEvent),
    wakeUp,
    state,
    seq,
    endSubscriptionIds: [...endSubscriptionIds],
    deliveredSubscriptionIds: [...delivered],
    nextEvaluationAt: next === null ? null : new Date(next),
  };
}

/**
 * What one subscription's digest or quiet hours hold now: events still waiting for their release, and those released
 * that wait for a cap slot; `nextDeliveryAt` is when the first of their messages comes (null: nothing held).
 */
export function heldBySubscription(
  events: readonly Pick<WatcherEvent, 'status' | 'releaseAt' | 'deliverAt' | 'heldBy'>[],
  subscriptionId: string,
  state: WatcherState,
  timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS,
): { heldCount: number; nextDeliveryAt: Date | null } {
  let heldCount = 0;
  let next: number | null = null;
  for (const event of events) {
    if (event.heldBy?.subscriptionId !== subscriptionId) continue;
    let at: Date | null;
    if (event.status === 'held') at = event.releaseAt === null ? null : heldDeliveryAt(event.releaseAt, state, timings);
    else if (event.status === 'released') at = event.deliverAt;
    else continue;
    heldCount += 1;
    if (at !== null && (next === null || at.getTime() < next)) next = at.getTime();
  }
  return { heldCount, nextDeliveryAt: next === null ? null : new Date(next) };
}

/** A watcher with no history. */
export const EMPTY_WATCHER_STATE: WatcherState = { wakeUps: [], windowClosesAt: null, capSlotAt: null, ownPrompts: {} };
