/**
 * list_subscriptions: the conversation's subscriptions (or, with watcher, another conversation's of the same
 * user): the active ones with what their digest or quiet hours hold now, and those ended in the last hour.
 * With a paired relay, those that watch that relay's sessions (kept here, where the watcher is).
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { subscriptionOwner } from '../optional-owners.ts';
import { listedSubscriptionView } from '../../views/subscription-view.ts';
import { getConversation, readSession } from '../../session-reads.ts';

export const listSubscriptions = defineAction({
  name: 'list_subscriptions',
  args: argumentsOf('relay', 'watcher'),
  relay: 'optional',
  write: false,
  answersAtOnce: true,
  inboxBlind: true,
  toPaired: { level: 'read', forwarded: false },
  handler: runListSubscriptions,
});

async function runListSubscriptions(args: ToolArguments, context: ActionContext): Promise<Success> {
  const { caller, sessions } = context;
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    const conversation = await getConversation(sessions, caller.sessionId);
    checkPairedRelayCall({
      action: context.action,
      relay: pairingView(target.relay),
      unlocks: conversation.unlockedRelays,
      turnProvenance: conversation.turnProvenance,
      sendsPrompt: false,
    });
  }
  const relay = target.kind === 'paired' ? target.relay.name : thisRelay(args.relay, context);
  const watcher = args.watcher?.trim() || caller.sessionId;
  // Another conversation must be one of the user's: reading it refuses an unknown one.
  if (watcher !== caller.sessionId) await readSession(sessions, caller.userId, watcher, 1);
  const { subscriptions: held } = await subscriptionOwner(context).listSubscriptions({ userId: caller.userId, watcherSessionId: watcher });
  const all = target.kind === 'paired' ? held.filter((subscription) => subscription.relay === relay) : held;
  const active = all.filter((subscription) => subscription.endedAt === undefined);
  const view = all.map(listedSubscriptionView);
  const endedCount = all.length - active.length;
  return success(
    `list_subscriptions → ${relay}: ${count(active.length, 'active subscription')}${endedCount > 0 ? `, ${endedCount} ended in the last hour` : ''}${watcher === caller.sessionId ? '' : ` of ${watcher}`}`,
    { watcher, subscriptions: view },
    relay,
  );
}
