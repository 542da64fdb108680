import { projectSessionEvent, runsKey } from '../domain/project-session-event.ts';
import type { SessionActivity, SessionEvent } from '../domain/session-activity.ts';
import type { SessionActivityStore } from './ports.ts';

/** A delivered session event and its message id. */
export type DeliveredSessionEvent = { messageId: string; event: SessionEvent };

/**
 * Applies delivered session events to the projection, each message once and in their order, in one transaction;
 * answers the message ids not applied before. When what runs in a session changes (runsKey) or it is archived, the
 * watchers whose subscriptions here watch it become due, so stalled, all_idle and the heartbeat are computed again.
 */
export async function recordSessionEvents(store: SessionActivityStore, events: readonly DeliveredSessionEvent[]): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  return store.transaction(async (tx) => {
    const fresh = await tx.processEachOnce(events.map((delivered) => delivered.messageId));
    const taken = events.filter((delivered) => fresh.delete(delivered.messageId));
    if (taken.length === 0) return new Set<string>();
    const rows = await tx.lockSessions([...new Set(taken.map(({ event }) => event.sessionId))].sort());
    const saved = new Map<string, SessionActivity>();
    // Per session, the earliest instant its runs changed: its watchers are due by then.
    const wake = new Map<string, { userId: string; at: Date }>();
    for (const { event } of taken) {
      const current = rows.get(event.sessionId);
      const next = projectSessionEvent(current, event);
      if (next === undefined) continue;
      rows.set(event.sessionId, next);
      saved.set(event.sessionId, next);
      const changed = current === undefined || runsKey(next.runs) !== runsKey(current.runs) || next.archivedAt?.getTime() !== current.archivedAt?.getTime();
      const due = wake.get(event.sessionId);
      if (changed && (due === undefined || next.lastEventAt.getTime() < due.at.getTime()))
        wake.set(event.sessionId, { userId: next.userId, at: next.lastEventAt });
    }
    await tx.saveSessions([...saved.values()]);
    await tx.makeWatchersDue(wake);
    return new Set(taken.map((delivered) => delivered.messageId));
  });
}

/** Applies one delivered session event to the projection; false when this message was already applied. */
export async function recordSessionEvent(store: SessionActivityStore, messageId: string, event: SessionEvent): Promise<boolean> {
  return (await recordSessionEvents(store, [{ messageId, event }])).has(messageId);
}
