/**
 * transfer_subscriptions: moves every subscription of another conversation of the user to this one, always
 * after the user's Allow on a card.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { toolError } from '../../../domain/errors.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { subscriptionOwner } from '../optional-owners.ts';
import { subscriptionView } from '../../views/subscription-view.ts';
import { getConversation, readSession } from '../../session-reads.ts';

export const transferSubscriptions = defineAction({
  name: 'transfer_subscriptions',
  args: argumentsOf('relay', 'from'),
  relay: 'optional',
  write: false,
  toPaired: { level: 'full', forwarded: false },
  handler: runTransferSubscriptions,
});

async function runTransferSubscriptions(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['from']);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  const from = args.from.trim();
  if (from === caller.sessionId)
    throw toolError('REMOTE_RELAY_INVALID_INPUT', 'transfer_subscriptions: from names this conversation; name the conversation to take them from.');
  const { session } = await readSession(sessions, caller.userId, from, 1);
  const owner = subscriptionOwner(context);
  const request = { userId: caller.userId, watcherSessionId: caller.sessionId, fromSessionId: from };
  const { subscriptions: planned } = await owner.transferSubscriptions({ ...request, dryRun: true });
  const conversation = await getConversation(sessions, caller.sessionId);
  await askApproval(
    {
      title: `Move ${count(planned.length, 'subscription')} of "${session.title}" to this conversation on ${relay}`,
      lines: planned.map(
        (subscription) => `${subscription.id}: ${subscription.scope === 'all' ? 'all sessions' : subscription.sessions.map((s) => `"${s.title}"`).join(', ')}`,
      ),
      asked: `moving the subscriptions of "${session.title}" here`,
      nothing: 'No subscription was moved.',
    },
    conversation,
    context,
  );
  const { subscriptions: moved } = await owner.transferSubscriptions({ ...request, dryRun: false });
  return success(
    `transfer_subscriptions → ${relay}: ${count(moved.length, 'subscription')} from ${from}`,
    { from, subscriptions: moved.map(subscriptionView) },
    relay,
  );
}
