/**
 * subscribe: the calling conversation watches sessions of this relay and is woken when something happens
 * there. The listed sessions are read first (unknown ones are refused by the subscription service after
 * its argument checks); a dry run checks everything; the user allows it on a card before a conversation
 * first watches (every mode) and before every write in the ask and plan modes.
 */
import type { ActionContext } from '../action-context.ts';
import type { Action } from '../action-context.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../card-policy.ts';
import type { CardText } from '../card-text.ts';
import { toolError } from '../errors.ts';
import { count, success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import type { SubscriptionOwner, WatchSubscription } from '../../ports.ts';

/** The subscription service, when this gateway was given one. */
export function subscriptionOwner(context: ActionContext): SubscriptionOwner {
  if (context.subscriptions === undefined) throw toolError('REMOTE_RELAY_UNSUPPORTED', 'Subscriptions are not available on this relay.');
  return context.subscriptions;
}

/** "2 sessions", "all sessions", "all sessions except 1". */
export function watchedLabel(subscription: WatchSubscription): string {
  if (subscription.scope !== 'all') return count(subscription.sessions.length, 'session');
  return subscription.exclude.length > 0 ? `all sessions except ${subscription.exclude.length}` : 'all sessions';
}

/** The options a card and a summary name: "digest every 30 min, quiet 23:00–06:00 Europe/Berlin, except 1". */
export function optionsLabel(subscription: WatchSubscription): string {
  const parts: string[] = [];
  if (subscription.digestMinutes !== null) parts.push(`digest every ${subscription.digestMinutes} min`);
  if (subscription.quietHours !== null) parts.push(`quiet ${subscription.quietHours.from}–${subscription.quietHours.to} ${subscription.quietHours.tz}`);
  if (subscription.exclude.length > 0) parts.push(`except ${subscription.exclude.length} it leaves out`);
  return parts.join(', ');
}

/** A subscription as subscribe and list_subscriptions show it: the options only when it has them. */
export function subscriptionView(subscription: WatchSubscription): Record<string, unknown> {
  return {
    id: subscription.id,
    ...(subscription.scope === 'all' ? { scope: 'all', sessions: 'all' } : { sessions: subscription.sessions }),
    events: subscription.events,
    once: subscription.once,
    ...(subscription.match ? { match: subscription.match } : {}),
    stalledMinutes: subscription.stalledMinutes,
    ...(subscription.heartbeatMinutes !== null ? { heartbeatMinutes: subscription.heartbeatMinutes } : {}),
    ...(subscription.digestMinutes !== null ? { digestMinutes: subscription.digestMinutes } : {}),
    ...(subscription.quietHours !== null ? { quietHours: subscription.quietHours } : {}),
    ...(subscription.exclude.length > 0 ? { exclude: subscription.exclude } : {}),
  };
}

function subscribeCard(relay: string, subscription: WatchSubscription): CardText {
  const what = watchedLabel(subscription);
  const lines = [
    subscription.scope === 'all' ? 'Sessions: all' : `Sessions: ${subscription.sessions.map((session) => `"${session.title}"`).join(', ')}`,
    `Events: ${subscription.events.join(', ')}${subscription.once ? ' (once)' : ''}`,
  ];
  const options = optionsLabel(subscription);
  if (options) lines.push(`Options: ${options}`);
  return {
    title: `Watch ${what} on ${relay}${options ? ` (${options})` : ''}`,
    lines,
    asked: `watching ${what} on ${relay}`,
    nothing: 'No subscription was made.',
  };
}

export const subscribe: Action = async (args, context) => {
  const relay = thisRelay(args.relay, context);
  const owner = subscriptionOwner(context);
  const { caller, sessions } = context;
  const listed = [...new Set(args.sessions ?? [])];
  const resolved: { id: string; title: string }[] = [];
  for (const id of listed) {
    if (id.toLowerCase() === 'all' || id === caller.sessionId) continue;
    try {
      const { session } = await sessions.readSession(caller.userId, id, 1);
      resolved.push({ id: session.id, title: session.title });
    } catch (error) {
      // An unknown session is refused by the subscription service, after its checks of the other arguments.
      if (!(error instanceof Error && 'code' in error && error.code === 'REMOTE_RELAY_NOT_FOUND')) throw error;
    }
  }
  const quiet = args.quiet_hours;
  const input = {
    userId: caller.userId,
    watcherSessionId: caller.sessionId,
    sessions: listed,
    exclude: args.exclude ?? [],
    events: args.events ?? [],
    once: args.once ?? false,
    match: args.match ?? '',
    stalledMinutes: args.stalled_minutes ?? 0,
    heartbeatMinutes: args.heartbeat_minutes ?? 0,
    digestMinutes: args.digest_minutes ?? 0,
    quietHours: quiet === undefined ? undefined : { from: String(quiet.from ?? ''), to: String(quiet.to ?? ''), tz: String(quiet.tz ?? '') },
    resolved,
  };
  const planned = await owner.subscribe({ ...input, dryRun: true });
  const conversation = await sessions.getConversation(caller.sessionId);
  if (planned.firstForWatcher || needsCard({ mode: conversation.session.mode, writes: true })) {
    await askApproval(subscribeCard(relay, planned.subscription), conversation, context);
  }
  const { subscription } = await owner.subscribe({ ...input, dryRun: false });
  const options = optionsLabel(subscription);
  return success(
    `subscribe → ${relay}: ${watchedLabel(subscription)}${options ? `, ${options}` : ''} (${subscription.id})`,
    { subscription: subscriptionView(subscription) },
    relay,
  );
};
