/**
 * unsubscribe: ends one subscription of the calling conversation, or with "all" every one it holds on the named
 * relay. A subscription to a paired relay's sessions also ends there (the pairing service stops fetching it).
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { subscriptionOwner } from '../optional-owners.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { getConversation } from '../../session-reads.ts';
import { REMOTE_DEADLINE_MS } from '../../ports.ts';

export const unsubscribe = defineAction({
  name: 'unsubscribe',
  args: argumentsOf('relay', 'subscription_id'),
  relay: 'optional',
  write: false,
  toPaired: { level: 'read', forwarded: false },
  handler: runUnsubscribe,
});

async function runUnsubscribe(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['subscription_id']);
  const id = args.subscription_id.trim();
  const all = id.toLowerCase() === 'all';
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  const relay = target.kind === 'paired' ? target.relay.name : thisRelay(args.relay, context);
  const { caller } = context;
  const ended =
    target.kind === 'paired'
      ? await endThere(target.relay, all ? 'all' : id, context)
      : (await subscriptionOwner(context).unsubscribe({ userId: caller.userId, watcherSessionId: caller.sessionId, subscriptionId: all ? '' : id, all }))
          .endedIds;
  // Those that watched a paired relay are no longer fetched, and end there too.
  for (const endedId of ended) await context.remoteEvents?.closeRemoteSubscription({ subscriptionId: endedId }, { deadlineMs: REMOTE_DEADLINE_MS });
  const summary = all ? `unsubscribe → ${relay}: ${count(ended.length, 'subscription')} ended` : `unsubscribe → ${relay}: ${id} ended`;
  return success(summary, { ended }, relay);
}

/** Ends the conversation's subscription `id` (or all of them) that watch `relay`'s sessions. */
async function endThere(relay: PairedRelay, id: string, context: ActionContext): Promise<string[]> {
  const { caller, sessions } = context;
  const conversation = await getConversation(sessions, caller.sessionId);
  checkPairedRelayCall({
    action: context.action,
    relay: pairingView(relay),
    unlocks: conversation.unlockedRelays,
    turnProvenance: conversation.turnProvenance,
    sendsPrompt: false,
  });
  const owner = subscriptionOwner(context);
  const { subscriptions } = await owner.listSubscriptions({ userId: caller.userId, watcherSessionId: caller.sessionId });
  const held = subscriptions.filter((subscription) => subscription.endedAt === undefined && subscription.relay === relay.name);
  const chosen = id === 'all' ? held : held.filter((subscription) => subscription.id === id);
  if (id !== 'all' && chosen.length === 0)
    throw toolError('REMOTE_RELAY_NOT_FOUND', `This conversation holds no active subscription ${id} on relay "${relay.name}".`);
  const ended: string[] = [];
  for (const subscription of chosen) {
    ended.push(
      ...(await owner.unsubscribe({ userId: caller.userId, watcherSessionId: caller.sessionId, subscriptionId: subscription.id, all: false })).endedIds,
    );
  }
  return ended;
}
