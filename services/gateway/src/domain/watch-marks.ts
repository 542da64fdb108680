/**
 * What the session list shows of watching (spec: "A conversation that watches others shows watching N sessions in
 * its header … A watched session shows a watched badge"), worked out from the user's active subscriptions.
 */
import type { Subscription } from '@relay/proto/relay/subscription/v1/subscription_service';

export interface WatchMarks {
  /** How many sessions this conversation watches, or "all" when a subscription of its covers every one. */
  watching?: number | 'all';
  /** One of the user's conversations watches this session. */
  watched?: true;
}

/** The marks of each session, from the user's active subscriptions; a session with none has {}. */
export function watchMarks(subscriptions: readonly Subscription[]): (sessionId: string) => WatchMarks {
  const watchedBy = new Map<string, Set<string> | 'all'>();
  const local = subscriptions.filter((subscription) => subscription.relay === '');
  for (const subscription of subscriptions) {
    const known = watchedBy.get(subscription.watcherSessionId);
    if (known === 'all') continue;
    // A paired relay's sessions count under their relay, so an id there never stands for one of ours.
    const ids = subscription.sessions.map((session) => `${subscription.relay}/${session.id}`);
    watchedBy.set(subscription.watcherSessionId, subscription.scope === 'all' ? 'all' : new Set([...(known ?? []), ...ids]));
  }
  return (sessionId) => {
    const watching = watchedBy.get(sessionId);
    // The agent's own conversation is never watched, whatever an "all" subscription says.
    const watched = local.some(
      (subscription) =>
        subscription.watcherSessionId !== sessionId &&
        (subscription.scope === 'all' ? !subscription.exclude.includes(sessionId) : subscription.sessions.some((session) => session.id === sessionId)),
    );
    return {
      ...(watching === undefined ? {} : { watching: watching === 'all' ? 'all' : watching.size }),
      ...(watched ? { watched: true as const } : {}),
    };
  };
}
