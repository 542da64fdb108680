/**
 * unsubscribe: ends one subscription of the calling conversation, or with "all" every one it holds here.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { count, success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import { subscriptionOwner } from './subscribe.ts';

export const unsubscribe: Action = async (args, context) => {
  requireArguments('unsubscribe', args, ['subscription_id']);
  const relay = thisRelay(args.relay, context);
  const id = args.subscription_id.trim();
  const ended = await subscriptionOwner(context).unsubscribe(context.caller.userId, context.caller.sessionId, id.toLowerCase() === 'all' ? 'all' : id);
  const summary = id.toLowerCase() === 'all' ? `unsubscribe → ${relay}: ${count(ended.length, 'subscription')} ended` : `unsubscribe → ${relay}: ${id} ended`;
  return success(summary, { ended }, relay);
};
