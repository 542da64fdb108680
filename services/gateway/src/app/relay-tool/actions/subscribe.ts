/**
 * subscribe: the calling conversation watches sessions of this relay, or of a paired relay, and is woken when
 * something happens there. The listed sessions are read first (unknown ones are refused by the subscription
 * service after its argument checks); a dry run checks everything; the user allows it on a card before a
 * conversation first watches (every mode) and before every write in the ask and plan modes.
 *
 * On a paired relay (spec, On a paired relay) the relay must be unlocked and allow at least reading; the
 * subscription is registered there (that relay checks its sessions and whether it accepts other relays'
 * agents) and made here, where its digest and quiet hours apply; the pairing service then fetches its events.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import type { CardText } from '../../../domain/card-text.ts';
import { toolError } from '../../../domain/errors.ts';
import { compareVersions } from '../../../domain/version.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import type { SubscribeRequest, Subscription } from '@relay/proto/relay/subscription/v1/subscription_service';
import { answered } from '../../../domain/answers.ts';
import { getConversation, readSession } from '../../session-reads.ts';
import { REMOTE_DEADLINE_MS } from '../../ports.ts';
import { remoteEventsOwner, subscriptionOwner } from '../optional-owners.ts';
import { subscriptionView } from '../../views/subscription-view.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';

export const subscribe = defineAction({
  name: 'subscribe',
  args: argumentsOf('relay', 'sessions', 'events', 'exclude', 'once', 'match', 'stalled_minutes', 'heartbeat_minutes', 'digest_minutes', 'quiet_hours'),
  relay: 'optional',
  write: true,
  toPaired: { level: 'read', forwarded: false },
  handler: runSubscribe,
});

/** "2 sessions", "all sessions", "all sessions except 1". */
export function watchedLabel(subscription: Subscription): string {
  if (subscription.scope !== 'all') return count(subscription.sessions.length, 'session');
  return subscription.exclude.length > 0 ? `all sessions except ${subscription.exclude.length}` : 'all sessions';
}

/** The options a card and a summary name: "digest every 30 min, quiet 23:00–06:00 Europe/Berlin, except 1". */
export function optionsLabel(subscription: Subscription): string {
  const parts: string[] = [];
  if (subscription.digestMinutes > 0) parts.push(`digest every ${subscription.digestMinutes} min`);
  if (subscription.quietHours !== undefined) parts.push(`quiet ${subscription.quietHours.from}–${subscription.quietHours.to} ${subscription.quietHours.tz}`);
  if (subscription.exclude.length > 0) parts.push(`except ${subscription.exclude.length} it leaves out`);
  return parts.join(', ');
}

function subscribeCard(relay: string, subscription: Subscription): CardText {
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

/** The versions that first have subscriptions, and exclude (spec, Watching sessions; Fewer wake-ups). */
const SUBSCRIPTIONS_SINCE = '0.9.10';
const EXCLUDE_SINCE = '0.9.16';

/** Whether the paired relay is known to run a version before `since`. */
function older(relay: PairedRelay, since: string): boolean {
  return relay.version !== '' && compareVersions(relay.version, since) < 0;
}

/** The subscription's arguments as the subscription service takes them, before its sessions are resolved. */
function subscribeInput(args: ToolArguments, context: ActionContext): Omit<SubscribeRequest, 'resolvedSessions' | 'dryRun' | 'relay'> {
  const quiet = args.quiet_hours;
  return {
    userId: context.caller.userId,
    watcherSessionId: context.caller.sessionId,
    sessions: [...new Set(args.sessions ?? [])],
    exclude: args.exclude ?? [],
    events: args.events ?? [],
    once: args.once ?? false,
    match: args.match ?? '',
    stalledMinutes: args.stalled_minutes ?? 0,
    heartbeatMinutes: args.heartbeat_minutes ?? 0,
    digestMinutes: args.digest_minutes ?? 0,
    quietHours: quiet === undefined ? undefined : { from: String(quiet.from ?? ''), to: String(quiet.to ?? ''), tz: String(quiet.tz ?? '') },
  };
}

function subscribedResult(relay: string, subscription: Subscription) {
  const options = optionsLabel(subscription);
  return success(
    `subscribe → ${relay}: ${watchedLabel(subscription)}${options ? `, ${options}` : ''} (${subscription.id})`,
    { subscription: subscriptionView(subscription) },
    relay,
  );
}

async function runSubscribe(args: ToolArguments, context: ActionContext): Promise<Success> {
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') return subscribeThere(args, target.relay, context);
  const relay = thisRelay(args.relay, context);
  const owner = subscriptionOwner(context);
  const { caller, sessions } = context;
  const listed = [...new Set(args.sessions ?? [])];
  const resolved: { id: string; title: string }[] = [];
  for (const id of listed) {
    if (id.toLowerCase() === 'all' || id === caller.sessionId) continue;
    try {
      const { session } = await readSession(sessions, caller.userId, id, 1);
      resolved.push({ id: session.id, title: session.title });
    } catch (error) {
      // An unknown session is refused by the subscription service, after its checks of the other arguments.
      if (!(error instanceof Error && 'code' in error && error.code === 'REMOTE_RELAY_NOT_FOUND')) throw error;
    }
  }
  const input = { ...subscribeInput(args, context), resolvedSessions: resolved, relay: '' };
  const planned = await owner.subscribe({ ...input, dryRun: true });
  const conversation = await getConversation(sessions, caller.sessionId);
  if (planned.firstForWatcher || needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    await askApproval(subscribeCard(relay, answered(planned.subscription, 'Subscribe', 'subscription')), conversation, context);
  }
  const made = await owner.subscribe({ ...input, dryRun: false });
  return subscribedResult(relay, answered(made.subscription, 'Subscribe', 'subscription'));
}

/**
 * subscribe with a paired relay: this relay's policy, then every check (the arguments here, the sessions and
 * the switch there) before the card; the subscription is made here and registered there, or not at all.
 */
async function subscribeThere(args: ToolArguments, relay: PairedRelay, context: ActionContext) {
  const owner = subscriptionOwner(context);
  const remote = remoteEventsOwner(context);
  const { caller, sessions } = context;
  const conversation = await getConversation(sessions, caller.sessionId);
  checkPairedRelayCall({
    action: context.action,
    relay: pairingView(relay),
    unlocks: conversation.unlockedRelays,
    turnProvenance: conversation.turnProvenance,
    sendsPrompt: false,
  });
  if (older(relay, SUBSCRIPTIONS_SINCE)) {
    throw toolError(
      'REMOTE_RELAY_UNSUPPORTED',
      `Relay "${relay.name}" runs OAR ${relay.version}, which has no subscriptions (${SUBSCRIPTIONS_SINCE}); it needs an update. No subscription was made.`,
      { version: relay.version, needs: SUBSCRIPTIONS_SINCE },
    );
  }
  const input = { ...subscribeInput(args, context), relay: relay.name };
  const listed = input.sessions.filter((id) => id.toLowerCase() !== 'all');
  // The arguments are checked here first; the sessions' titles come from that relay.
  await owner.subscribe({ ...input, resolvedSessions: listed.map((id) => ({ id, title: '' })), dryRun: true });
  const spec = {
    relay: relay.name,
    userId: caller.userId,
    watcherSessionId: caller.sessionId,
    sessions: input.sessions,
    // A relay before 0.9.16 does not know exclude: it is not sent there, and this relay still drops those
    // sessions' events (that relay counts them for all_idle, stalls and the heartbeat).
    exclude: older(relay, EXCLUDE_SINCE) ? [] : input.exclude,
    events: input.events,
    stalledMinutes: input.stalledMinutes,
    heartbeatMinutes: input.heartbeatMinutes,
  };
  const options = { deadlineMs: REMOTE_DEADLINE_MS };
  const { sessions: resolvedSessions } = await remote.openRemoteSubscription({ ...spec, subscriptionId: '', dryRun: true }, options);
  const planned = await owner.subscribe({ ...input, resolvedSessions, dryRun: true });
  if (planned.firstForWatcher || needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    await askApproval(subscribeCard(relay.name, answered(planned.subscription, 'Subscribe', 'subscription')), conversation, context);
  }
  const subscription = answered((await owner.subscribe({ ...input, resolvedSessions, dryRun: false })).subscription, 'Subscribe', 'subscription');
  try {
    await remote.openRemoteSubscription({ ...spec, subscriptionId: subscription.id, dryRun: false }, options);
  } catch (error) {
    // Not registered there: it would never be woken, so it is not kept here either.
    await owner.unsubscribe({ userId: caller.userId, watcherSessionId: caller.sessionId, subscriptionId: subscription.id, all: false }).catch(() => undefined);
    throw error;
  }
  return subscribedResult(relay.name, subscription);
}
