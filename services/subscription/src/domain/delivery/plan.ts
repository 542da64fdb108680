/**
 * planRelease: when a matched event may reach the watcher, and why. It combines, in this order,
 * the no-echo rule, urgency, quiet hours and digest_minutes per subscription; the earliest of the
 * subscriptions that took the event; then the coalescing window (for events no option held) and the
 * hourly cap of the watcher.
 */
import { capRelease, recordWakeUp } from './cap.ts';
import { coalesceRelease } from './coalesce.ts';
import { nextDigestAt } from './digest.ts';
import {
  DEFAULT_DELIVERY_TIMINGS,
  LINK_EVENT_KINDS,
  URGENT_EVENT_KINDS,
  type DeliveryPlan,
  type DeliverySubscription,
  type DeliveryTimings,
  type EventKind,
  type HeldBy,
  type RelayEvent,
  type ReleasePlan,
  type ReleaseReason,
  type WatcherState,
} from './model.ts';
import { quietWindowAt } from './quiet-hours.ts';

/** question_asked, question_answered and error, and the link rows: never held back by anything. */
export function isUrgent(kind: EventKind): boolean {
  return (URGENT_EVENT_KINDS as readonly EventKind[]).includes(kind) || (LINK_EVENT_KINDS as readonly EventKind[]).includes(kind);
}

/** What one subscription that took the event says about it. */
export type SubscriptionRelease =
  | { kind: 'drop'; reason: 'echo' | 'heartbeat_in_quiet_hours' }
  | { kind: 'hold_while_waiting' }
  | { kind: 'at'; releaseAt: Date; reasons: ReleaseReason[]; heldBy: HeldBy | null };

/**
 * The no-echo rule for a turn_end of the watcher's own prompt: a decision (hold or drop), or the
 * reason it goes on to the subscription's options. Null when the rule does not apply.
 */
function echoRule(event: RelayEvent, subscription: DeliverySubscription, watcher: WatcherState): SubscriptionRelease | ReleaseReason | null {
  if (event.kind !== 'turn_end' || event.promptMessageId === null) return null;
  const own = watcher.ownPrompts[event.promptMessageId];
  if (own === undefined) return null;
  if (subscription.once) return 'ends_once';
  if (own === 'waiting') return { kind: 'hold_while_waiting' };
  if (own === 'reply_returned') return { kind: 'drop', reason: 'echo' };
  return 'own_prompt_not_waited';
}

/**
 * When one subscription lets the event go. Quiet hours are judged at the event's instant and hold
 * it to the occurrence's end; a digest holds it to the next digest, moved to the end of a quiet
 * window it falls in. Times may lie before `now` (a late or replayed event): it goes at once then.
 */
export function subscriptionRelease(event: RelayEvent, subscription: DeliverySubscription, watcher: WatcherState): SubscriptionRelease {
  if (isUrgent(event.kind)) return { kind: 'at', releaseAt: event.occurredAt, reasons: ['urgent'], heldBy: null };
  const echo = echoRule(event, subscription, watcher);
  if (echo !== null && typeof echo === 'object') return echo;
  const reasons: ReleaseReason[] = echo === null ? [] : [echo];
  const { quietHours } = subscription;
  const quiet = quietHours && quietWindowAt(event.occurredAt, quietHours);
  if (event.kind === 'heartbeat' && quiet) return { kind: 'drop', reason: 'heartbeat_in_quiet_hours' };

  let releaseAt = event.occurredAt;
  let heldBy: HeldBy | null = null;
  if (quietHours && quiet) {
    releaseAt = quiet.end;
    heldBy = { kind: 'quiet_hours', subscriptionId: subscription.id, quietHours };
    reasons.push('quiet_hours');
  }
  const digestAt = nextDigestAt(subscription);
  if (digestAt !== null && subscription.digestMinutes !== null && digestAt.getTime() > releaseAt.getTime()) {
    releaseAt = digestAt;
    heldBy = { kind: 'digest', subscriptionId: subscription.id, digestMinutes: subscription.digestMinutes };
    reasons.push('digest');
    const moved = quietHours && quietWindowAt(digestAt, quietHours);
    if (quietHours && moved) {
      releaseAt = moved.end;
      heldBy = { kind: 'quiet_hours', subscriptionId: subscription.id, quietHours };
      reasons.push('digest_moved_to_quiet_end');
    }
  }
  if (reasons.length === 0 || reasons.every((reason) => reason === 'ends_once' || reason === 'own_prompt_not_waited')) {
    reasons.push('not_held');
  }
  return { kind: 'at', releaseAt, reasons, heldBy };
}

/**
 * How a released event meets the coalescing window: `urgent` goes at once and past the cap; `hold_ended` (a digest
 * or quiet hours held it, and its release came) goes at once too, having waited already, but keeps to the cap;
 * `new` waits for the window to close.
 */
export type DeliveryKind = 'urgent' | 'hold_ended' | 'new';

/**
 * When a message with an event released at `now` reaches the watcher: urgent ones and held ones at their release at
 * once (taking the open window's events along), new ones when the coalescing window closes; non-urgent ones at a cap
 * slot while the hourly cap is reached.
 */
export function planDelivery(watcher: WatcherState, now: Date, kind: DeliveryKind, timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS): DeliveryPlan {
  const coalesced = coalesceRelease(watcher.windowClosesAt, now, kind !== 'new', timings.coalesceMs);
  if (kind === 'urgent') {
    return {
      deliverAt: coalesced.sendAt,
      reasons: coalesced.takesWindowClosingAt ? ['at_once', 'takes_open_window'] : ['at_once'],
      takesWindowClosingAt: coalesced.takesWindowClosingAt,
      windowClosesAt: null,
      capDigest: false,
      watcherState: { ...watcher, windowClosesAt: null },
    };
  }
  const capped = capRelease(watcher.wakeUps, watcher.capSlotAt, coalesced.sendAt, timings);
  if (kind === 'hold_ended') {
    // Blocked by the cap, it waits for the slot alone: the open window's events keep their own send time.
    const takes = capped.capDigest ? null : coalesced.takesWindowClosingAt;
    return {
      deliverAt: capped.sendAt,
      reasons: capped.capDigest ? ['hold_ended', 'hourly_cap'] : takes ? ['hold_ended', 'takes_open_window'] : ['hold_ended'],
      takesWindowClosingAt: takes,
      windowClosesAt: null,
      capDigest: capped.capDigest,
      watcherState: { ...watcher, windowClosesAt: capped.capDigest ? watcher.windowClosesAt : null, capSlotAt: capped.capSlotAt },
    };
  }
  return {
    deliverAt: capped.sendAt,
    reasons: capped.capDigest ? ['coalescing', 'hourly_cap'] : ['coalescing'],
    takesWindowClosingAt: null,
    windowClosesAt: coalesced.joinedWindowClosingAt,
    capDigest: capped.capDigest,
    watcherState: { ...watcher, windowClosesAt: coalesced.windowClosesAt, capSlotAt: capped.capSlotAt },
  };
}

/**
 * Decides for one event that `subscriptions` (all of one watcher) took: drop it, hold it while the
 * watcher waits for that turn, hold it until a time (plan again then), or release it now with the
 * time its message reaches the watcher. Several subscriptions: the earliest release wins. An
 * urgent event needs no subscription (question_answered goes to the asking conversation).
 */
export function planRelease(
  event: RelayEvent,
  subscriptions: readonly DeliverySubscription[],
  watcher: WatcherState,
  now: Date,
  timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS,
): ReleasePlan {
  const urgent = isUrgent(event.kind);
  if (subscriptions.length === 0 && !urgent) throw new Error(`planRelease needs the subscriptions that took ${event.kind} ${event.id}`);
  const endsSubscriptionIds = subscriptions.filter((subscription) => subscription.once).map((subscription) => subscription.id);
  if (urgent) {
    return {
      action: 'release',
      releaseAt: now,
      subscriptionId: subscriptions[0]?.id ?? null,
      reasons: ['urgent'],
      heldBy: null,
      delivery: planDelivery(watcher, now, 'urgent', timings),
      endsSubscriptionIds,
    };
  }

  const answers = subscriptions.map((subscription) => ({ subscription, answer: subscriptionRelease(event, subscription, watcher) }));
  let earliest: { subscriptionId: string; answer: Extract<SubscriptionRelease, { kind: 'at' }> } | null = null;
  for (const { subscription, answer } of answers) {
    if (answer.kind === 'at' && (earliest === null || answer.releaseAt.getTime() < earliest.answer.releaseAt.getTime())) {
      earliest = { subscriptionId: subscription.id, answer };
    }
  }
  if (earliest === null) {
    if (answers.some(({ answer }) => answer.kind === 'hold_while_waiting')) {
      return { action: 'hold_while_waiting', reason: 'echo_waiting', endsSubscriptionIds };
    }
    const drop = answers.find(({ answer }) => answer.kind === 'drop')?.answer;
    return { action: 'drop', reason: drop?.kind === 'drop' ? drop.reason : 'echo', endsSubscriptionIds };
  }

  const { subscriptionId, answer } = earliest;
  // An event stamped after `now` (a paired relay's clock runs ahead) is held only by its options.
  if (answer.heldBy !== null && answer.releaseAt.getTime() > now.getTime()) {
    return { action: 'hold', releaseAt: answer.releaseAt, subscriptionId, reasons: answer.reasons, heldBy: answer.heldBy, endsSubscriptionIds };
  }
  return {
    action: 'release',
    releaseAt: answer.releaseAt,
    subscriptionId,
    reasons: answer.reasons,
    heldBy: answer.heldBy,
    delivery: planDelivery(watcher, now, answer.heldBy === null ? 'new' : 'hold_ended', timings),
    endsSubscriptionIds,
  };
}

/**
 * When the message of an event held until `releaseAt` comes, as the watcher's cap log stands now: at the release, or
 * at the cap slot the hourly cap defers it to.
 */
export function heldDeliveryAt(releaseAt: Date, watcher: WatcherState, timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS): Date {
  return capRelease(watcher.wakeUps, watcher.capSlotAt, releaseAt, timings).sendAt;
}

/** The watcher's state once a message was injected at `at`: the wake-up joins the cap's log. */
export function recordDelivery(watcher: WatcherState, at: Date, timings: DeliveryTimings = DEFAULT_DELIVERY_TIMINGS): WatcherState {
  return { ...watcher, wakeUps: recordWakeUp(watcher.wakeUps, at, timings.capWakeUps) };
}
