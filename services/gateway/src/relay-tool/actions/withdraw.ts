/**
 * withdraw: takes back an ask that is still pending. Only the conversation that asked may withdraw it.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { ownRelay } from '../own-relay.ts';
import { success } from '../result.ts';

export const withdraw: Action = async (args, context) => {
  requireArguments('withdraw', args, ['question_id']);
  const relay = ownRelay(args.relay, context);
  const { caller, questions } = context;
  const withdrawn = await questions.withdrawAsk(caller.userId, caller.sessionId, args.question_id);
  return success(`withdraw → ${relay}: question ${withdrawn.id} withdrawn`, { question_id: withdrawn.id, status: withdrawn.status }, relay);
};
