/**
 * The events this service computes rather than receives, pure functions of (the watched sessions' activity, the
 * subscription, now): stalled, all_idle and the heartbeat. The planner calls `computeEvents` whenever it
 * evaluates a watcher and stores what comes out under deterministic ids (so each fires once however often it is
 * computed), then is due again at `nextDueAt`. Choices where the spec is silent:
 * - stalled: a running turn is silent since its latest sign of life the events show (its start, its reply text or
 *   tool calls, a question, a task it started); a running task since its last output, or its start. Each silence
 *   fires once, at the instant it reached stalledMinutes (not before the subscription was made).
 * - all_idle fires when the last running turn or task of the watched sessions ended, at that instant, once per
 *   such instant; not for an idleness that began before the subscription was made.
 * - The heartbeat is on the grid created_at + k × heartbeatMinutes; a grid time inside quiet hours is skipped,
 *   and after a pause only the latest grid time is made.
 * - match filters events by their text; these have none and are not filtered by it. exclude applies to all three.
 */
import { nextHeartbeatAt, quietWindowAt, type RelayEvent } from '../delivery/index.ts';
import { activityAt, NO_RUNS, type SessionActivity, type SessionState } from '../session-activity.ts';
import type { Subscription } from './subscription.ts';

const MINUTE_MS = 60_000;

/** What computing needs of a subscription. */
export type ComputingSubscription = Pick<
  Subscription,
  'id' | 'watcherSessionId' | 'scope' | 'sessions' | 'exclude' | 'events' | 'stalledMinutes' | 'heartbeatMinutes' | 'quietHours' | 'createdAt'
>;

/** A computed event and the id it is stored under; `traceParent`: the trace of the event that made it (all_idle). */
export type ComputedEvent = { sourceEventId: string; event: RelayEvent; traceParent?: string | null };

/** Whether the subscription asks for any computed event (otherwise the planner need not read activity for it). */
export function computesEvents(subscription: Pick<Subscription, 'events' | 'heartbeatMinutes'>): boolean {
  return subscription.heartbeatMinutes !== null || subscription.events.includes('stalled') || subscription.events.includes('all_idle');
}

/**
 * The sessions the subscription watches, as the projection knows them: a listed session it has not heard of yet
 * is idle with its listed title; "all" is every session of the user that is not archived, excluded or the watcher.
 */
export function watchedSessions(subscription: ComputingSubscription, activity: readonly SessionActivity[]): SessionActivity[] {
  const byId = new Map(activity.map((row) => [row.sessionId, row]));
  if (subscription.scope === 'sessions') {
    return subscription.sessions.map((session) => {
      const row = byId.get(session.id);
      const title = row?.title || session.title;
      return row
        ? { ...row, title }
        : {
            sessionId: session.id,
            userId: '',
            title,
            state: 'idle' as SessionState,
            lastEventAt: new Date(0),
            lastEventId: '',
            runs: NO_RUNS,
            archivedAt: null,
          };
    });
  }
  return activity.filter((row) => row.archivedAt === null && row.sessionId !== subscription.watcherSessionId && !subscription.exclude.includes(row.sessionId));
}

const later = (a: Date, b: Date): Date => (a.getTime() >= b.getTime() ? a : b);
const session = (row: SessionActivity) => ({ id: row.sessionId, title: row.title || row.sessionId });

/** What is due now for one subscription, and when it should be computed again (null: only when activity changes). */
export function computeEvents(
  subscription: ComputingSubscription,
  activity: readonly SessionActivity[],
  now: Date,
): { events: ComputedEvent[]; nextDueAt: Date | null } {
  // An external session's held call counts as its running turn until it is released or its hold lapses.
  const watched = watchedSessions(subscription, activity).map((row) => activityAt(row, now));
  const events: ComputedEvent[] = [];
  let next: number | null = null;
  const dueAt = (at: Date) => {
    if (next === null || at.getTime() < next) next = at.getTime();
  };
  for (const row of watched) {
    const heldUntil = row.runs.turn?.heldUntil;
    if (heldUntil !== undefined && (subscription.events.includes('all_idle') || subscription.events.includes('stalled'))) dueAt(heldUntil);
  }
  const base = { relay: null };

  if (subscription.events.includes('stalled')) {
    const stallMs = subscription.stalledMinutes * MINUTE_MS;
    for (const row of watched) {
      const silences: { key: string; since: Date; task: { id: string; description: string } | null }[] = [];
      const { turn, turnActivityAt, tasks } = row.runs;
      if (turn !== null) silences.push({ key: `turn:${turn.id}`, since: turnActivityAt ?? turn.startedAt, task: null });
      for (const task of tasks)
        silences.push({ key: `task:${task.id}`, since: task.lastOutputAt ?? task.startedAt, task: { id: task.id, description: task.description } });
      for (const silence of silences) {
        const at = later(new Date(silence.since.getTime() + stallMs), subscription.createdAt);
        if (at.getTime() > now.getTime()) {
          dueAt(at);
          continue;
        }
        const id = `stalled:${subscription.id}:${row.sessionId}:${silence.key}:${silence.since.toISOString()}`;
        events.push({
          sourceEventId: id,
          event: { ...base, id, kind: 'stalled', occurredAt: at, session: session(row), minutes: subscription.stalledMinutes, task: silence.task },
        });
      }
    }
  }

  if (subscription.events.includes('all_idle') && watched.length > 0 && watched.every((row) => row.runs.turn === null && row.runs.tasks.length === 0)) {
    const ends = watched.map((row) => row.runs.lastEndedAt?.getTime() ?? null).filter((at): at is number => at !== null);
    const idleAt = ends.length === 0 ? null : new Date(Math.max(...ends));
    if (idleAt !== null && idleAt.getTime() > subscription.createdAt.getTime() && idleAt.getTime() <= now.getTime()) {
      const id = `all_idle:${subscription.id}:${idleAt.toISOString()}`;
      // Linked to the event that ended the last run: the one that made them all idle.
      const last = watched.find((row) => row.runs.lastEndedAt?.getTime() === idleAt.getTime());
      const traceParent = last?.runs.lastEndedTraceParent ?? null;
      events.push({
        sourceEventId: id,
        event: { ...base, id, kind: 'all_idle', occurredAt: idleAt, subscriptionId: subscription.id, sessionCount: watched.length },
        ...(traceParent ? { traceParent } : {}),
      });
    }
  }

  if (subscription.heartbeatMinutes !== null) {
    const stepMs = subscription.heartbeatMinutes * MINUTE_MS;
    const steps = Math.floor((now.getTime() - subscription.createdAt.getTime()) / stepMs);
    const latest = new Date(subscription.createdAt.getTime() + Math.max(0, steps) * stepMs);
    if (steps >= 1 && !(subscription.quietHours && quietWindowAt(latest, subscription.quietHours))) {
      const id = `heartbeat:${subscription.id}:${latest.toISOString()}`;
      const sessions = watched.map((row) => ({ ...session(row), state: row.state }));
      events.push({ sourceEventId: id, event: { ...base, id, kind: 'heartbeat', occurredAt: latest, subscriptionId: subscription.id, sessions } });
    }
    const following = nextHeartbeatAt(latest, subscription.heartbeatMinutes, subscription.quietHours);
    if (following !== null) dueAt(following);
  }

  return { events, nextDueAt: next === null ? null : new Date(next) };
}
