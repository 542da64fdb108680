/**
 * stalled, all_idle and the heartbeat of a paired relay's subscription to this relay's sessions (spec, Fewer
 * wake-ups: exclude is passed to the other relay for all three). They are computed here, where the sessions'
 * activity is (every session of the user, idle ones included, which the watching relay never sees), by the same
 * pure rules as for a local subscription, and sent in this relay's words: the watching relay shows them with our
 * name in front, so they read as its local rows do. Its digest and quiet hours apply there.
 */
import { computedEventText } from '../delivery/render.ts';
import type { SessionActivity } from '../session-activity.ts';
import { computeEvents } from './computed-events.ts';
import { DEFAULT_EVENTS, DEFAULT_STALLED_MINUTES, SUBSCRIBABLE_EVENTS, type SubscribableEvent, type WatchedSession } from './subscribe-rules.ts';

/** A paired relay's subscription as it registered it with our pairing service. */
export type RemoteWatchSpec = {
  /** Its subscription id there (the deterministic ids below are built on it). */
  subscriptionId: string;
  userId: string;
  scope: 'sessions' | 'all';
  sessions: WatchedSession[];
  exclude: string[];
  /** [] = the default events. */
  events: string[];
  /** 0 = the default. */
  stalledMinutes: number;
  /** 0 = none. */
  heartbeatMinutes: number;
  createdAt: Date;
};

/** A computed event as it travels to the watching relay (a RemoteEvent). */
export type ComputedRemoteEvent = {
  id: string;
  kind: 'stalled' | 'all_idle' | 'heartbeat';
  sessionId: string;
  sessionTitle: string;
  text: string;
  occurredAt: Date;
};

/**
 * What is due now for the watch, each under its deterministic id (made once however often it is computed), and
 * when to compute again. The watcher is on the other relay, so no session here is left out as "the watcher"; the
 * quiet hours are the watching relay's, which drops a heartbeat made inside them.
 */
export function computeRemoteWatchEvents(
  watch: RemoteWatchSpec,
  activity: readonly SessionActivity[],
  now: Date,
): { events: ComputedRemoteEvent[]; nextDueAt: Date | null } {
  const named = watch.events.filter((event): event is SubscribableEvent => (SUBSCRIBABLE_EVENTS as readonly string[]).includes(event));
  const computed = computeEvents(
    {
      id: watch.subscriptionId,
      watcherSessionId: '',
      scope: watch.scope,
      sessions: watch.sessions,
      exclude: watch.exclude,
      events: watch.events.length === 0 ? [...DEFAULT_EVENTS] : named,
      stalledMinutes: watch.stalledMinutes > 0 ? watch.stalledMinutes : DEFAULT_STALLED_MINUTES,
      heartbeatMinutes: watch.heartbeatMinutes > 0 ? watch.heartbeatMinutes : null,
      quietHours: null,
      createdAt: watch.createdAt,
    },
    activity,
    now,
  );
  const events = computed.events.flatMap(({ event }): ComputedRemoteEvent[] => {
    if (event.kind !== 'stalled' && event.kind !== 'all_idle' && event.kind !== 'heartbeat') return [];
    const session = event.kind === 'stalled' ? event.session : { id: '', title: '' };
    return [
      { id: event.id, kind: event.kind, sessionId: session.id, sessionTitle: session.title, text: computedEventText(event), occurredAt: event.occurredAt },
    ];
  });
  return { events, nextDueAt: computed.nextDueAt };
}
