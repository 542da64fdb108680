/**
 * withdraw: takes back an ask that is still pending. Only the conversation that asked may withdraw it. On a
 * paired relay, an ask this conversation keeps there (and it is no longer polled).
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { ownRelay } from '../own-relay.ts';
import { checkPairedRelayCall } from '../paired-relay-policy.ts';
import { resolveRelay } from '../relay-name.ts';
import { success } from '../result.ts';
import { remoteEventsOwner } from './subscribe.ts';

export const withdraw: Action = async (args, context) => {
  requireArguments('withdraw', args, ['question_id']);
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    const { caller, sessions } = context;
    const conversation = await sessions.getConversation(caller.sessionId);
    checkPairedRelayCall({ action: 'withdraw', relay: target.relay, unlocks: conversation.unlockedRelays, turnProvenance: conversation.turnProvenance, sendsPrompt: false });
    const withdrawn = await remoteEventsOwner(context).withdrawRemoteAsk(target.relay.name, caller.sessionId, args.question_id);
    return success(`withdraw → ${target.relay.name}: question ${withdrawn.id} withdrawn`, { question_id: withdrawn.id, status: withdrawn.status }, target.relay.name);
  }
  const relay = ownRelay(args.relay, context);
  const { caller, questions } = context;
  const withdrawn = await questions.withdrawAsk(caller.userId, caller.sessionId, args.question_id);
  return success(`withdraw → ${relay}: question ${withdrawn.id} withdrawn`, { question_id: withdrawn.id, status: withdrawn.status }, relay);
};
