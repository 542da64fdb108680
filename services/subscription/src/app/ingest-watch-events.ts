/**
 * What this relay's session and question events do to subscriptions: each event is stored once for every watcher
 * whose subscriptions take it, as those watchers' evaluation at once planned it; an archive ends subscriptions.
 */
import { activeTraceParent } from '@relay/telemetry';
import type { RelayEvent } from '../domain/delivery/index.ts';
import { afterArchives } from '../domain/subscriptions/remote-events.ts';
import { takesEvent } from '../domain/subscriptions/subscribe-rules.ts';
import type { SessionCandidate, WatchInput } from '../domain/subscriptions/watch-event.ts';
import { evaluateWatchers } from './evaluate-watchers.ts';
import type { NewWatcherEvent, PipelineTransaction, WatchDeps } from './ports.ts';

/** One bus message: its id, what it says, and the traceparent of the span it came in with. */
export type IngestItem = { messageId: string; input: WatchInput; traceParent: string | null };

/** What ingestWatchEvents did: messages new to the consumer, and when a watcher it planned is due next. */
export type IngestedBatch = { ingested: number; nextDueAt: Date | null };

/**
 * Applies bus messages, each once (`consumer`, its id), in one transaction and in their order: stores each event for
 * every watcher whose subscriptions take it (one row per watcher and source event), and evaluates those watchers at
 * once while it holds them, as the planner would (their wake-ups are published once it commits); an
 * archive ends subscriptions for the messages after it.
 */
export async function ingestWatchEvents(deps: WatchDeps, consumer: string, items: readonly IngestItem[], now: Date): Promise<IngestedBatch> {
  return deps.store.pipelineTransaction(async (tx) => {
    const fresh = await tx.processEachOnce(
      consumer,
      items.map((item) => item.messageId),
    );
    const taken = items.filter((item) => fresh.delete(item.messageId));
    const arriving: NewWatcherEvent[] = [];
    let matching: IngestItem[] = [];
    // Consecutive session events are matched together; an archive changes what the messages after it match.
    const matchPending = async () => {
      arriving.push(...(await matchSessionEvents(tx, matching)));
      matching = [];
    };
    for (const item of taken) {
      const { input } = item;
      if (input.type === 'session_events') {
        matching.push(item);
      } else if (input.type === 'archived') {
        await matchPending();
        await endForArchive(tx, input.sessionId, now);
      } else {
        const event = { sourceEventId: input.sourceEventId, event: input.event, subscriptionIds: [] };
        arriving.push(
          ...input.watcherSessionIds.map((watcherSessionId) => ({ ...event, watcherSessionId, userId: input.userId, traceParent: item.traceParent })),
        );
      }
    }
    await matchPending();
    // The events are written once, as planned, by the evaluation.
    const watchers = await tx.lockWatchersOf(arriving, now);
    const evaluated = await evaluateWatchers(deps, tx, watchers, now, arriving);
    return { ingested: taken.length, ...evaluated };
  });
}

/** ingestWatchEvents for one message, with the active span's trace (the one it came in with). */
export function ingestWatchEvent(deps: WatchDeps, consumer: string, messageId: string, input: WatchInput, now: Date): Promise<IngestedBatch> {
  return ingestWatchEvents(deps, consumer, [{ messageId, input, traceParent: activeTraceParent() }], now);
}

/** The candidate's event with the session's title as the watcher sees it. */
function withTitle(candidate: SessionCandidate, sessionId: string, title: string): RelayEvent {
  return 'session' in candidate.event ? ({ ...candidate.event, session: { id: sessionId, title } } as RelayEvent) : candidate.event;
}

/** The events of session messages for the watchers whose active subscriptions here take them, found in one query. */
async function matchSessionEvents(tx: PipelineTransaction, items: readonly IngestItem[]): Promise<NewWatcherEvent[]> {
  const inputs = items.flatMap((item) => (item.input.type === 'session_events' ? [{ ...item.input, traceParent: item.traceParent }] : []));
  if (inputs.length === 0) return [];
  const { subscriptions, titles } = await tx.subscriptionsWatching(
    [...new Set(inputs.map((input) => input.userId))],
    [...new Set(inputs.map((input) => input.sessionId))],
  );
  if (subscriptions.length === 0) return [];
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

/** Archive: the session's own subscriptions end, and it leaves every list that names it (a list left empty ends). */
async function endForArchive(tx: PipelineTransaction, sessionId: string, now: Date): Promise<void> {
  await tx.endWatcherSubscriptions(sessionId, now, 'watcher_archived');
  for (const subscription of await tx.listsNaming(sessionId)) {
    const left = afterArchives(subscription, [sessionId]);
    if (left === null) continue;
    if (left.ended) await tx.endSubscriptions([subscription.id], now, 'session_archived');
    else await tx.setSubscriptionSessions(subscription.id, left.sessions);
  }
}
