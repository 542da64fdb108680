/**
 * withdraw: takes back an ask that is still pending. Only the conversation that asked may withdraw it. On a
 * paired relay, an ask this conversation keeps there (and it is no longer polled).
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { ownRelay } from '../../../domain/own-relay.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { success, type Success } from '../../../domain/result.ts';
import { remoteEventsOwner } from '../optional-owners.ts';
import { askStatusName } from '../../views/question-view.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';
import { REMOTE_DEADLINE_MS } from '../../ports.ts';

export const withdraw = defineAction({
  name: 'withdraw',
  args: argumentsOf('relay', 'question_id'),
  relay: 'optional',
  write: false,
  toPaired: { level: 'read_and_prompt', forwarded: false },
  handler: runWithdraw,
});

async function runWithdraw(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['question_id']);
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') {
    const { caller, sessions } = context;
    const conversation = await getConversation(sessions, caller.sessionId);
    checkPairedRelayCall({
      action: context.action,
      relay: pairingView(target.relay),
      unlocks: conversation.unlockedRelays,
      turnProvenance: conversation.turnProvenance,
      sendsPrompt: false,
    });
    const request = { relay: target.relay.name, askingSessionId: caller.sessionId, askId: args.question_id };
    const withdrawn = answered(
      (await remoteEventsOwner(context).withdrawRemoteAsk(request, { deadlineMs: REMOTE_DEADLINE_MS })).ask,
      'WithdrawRemoteAsk',
      'ask',
    );
    return success(
      `withdraw → ${target.relay.name}: question ${withdrawn.id} withdrawn`,
      { question_id: withdrawn.id, status: withdrawn.status },
      target.relay.name,
    );
  }
  const relay = ownRelay(args.relay, context);
  const { caller, questions } = context;
  const withdrawn = answered(
    (await questions.withdrawAsk({ userId: caller.userId, askingSessionId: caller.sessionId, askId: args.question_id })).ask,
    'WithdrawAsk',
    'ask',
  );
  return success(`withdraw → ${relay}: question ${withdrawn.id} withdrawn`, { question_id: withdrawn.id, status: askStatusName(withdrawn.status) }, relay);
}
