/**
 * send: queues a prompt in an existing session and waits for the reply. With provider ("claude" or
 * "claude-api") it also moves a Claude session's billing, in one call: the session service checks
 * both before anything is queued. The prompt carries the provenance of the caller's turn. In the
 * ask and plan modes the user allows it on a card first.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { awaitTurn } from '../await-turn.ts';
import { needsCard } from '../card-policy.ts';
import { sendCard } from '../card-text.ts';
import { requireNotOnItself } from '../not-on-itself.ts';
import { passLoopGuard } from '../loop-guard.ts';
import { provenanceOf } from '../provenance.ts';
import { success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import { shortId, turnFields, turnPhrase } from '../turn-result.ts';
import { planWait } from '../wait-seconds.ts';

export const send: Action = async (args, context) => {
  requireArguments('send', args, ['session', 'text']);
  const wait = planWait('send', args.wait_seconds, context.settings.maxWaitSeconds);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('send', args.session, caller);

  const conversation = await sessions.getConversation(caller.sessionId);
  const message = {
    userId: caller.userId,
    callerSessionId: caller.sessionId,
    sessionId: args.session,
    text: args.text,
    provider: args.provider,
    model: args.model,
    effort: args.effort,
    mode: args.mode,
    provenance: provenanceOf(relay, conversation),
  };
  const checked = await sessions.sendMessage({ ...message, dryRun: true });
  if (needsCard({ mode: conversation.session.mode, writes: true })) {
    const choice = { text: args.text, model: args.model, effort: args.effort, mode: args.mode, billingSwitch: checked.billingSwitch };
    await askApproval(sendCard(relay, checked.session, choice), conversation, context);
  }
  await passLoopGuard(conversation, context, 'Nothing was sent.');

  const sent = await sessions.sendMessage({ ...message, dryRun: false });
  const result = await awaitTurn(
    { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: sent.session.id, messageId: sent.messageId, waitSeconds: wait.waitSeconds },
    context,
  );
  const billing = sent.billingSwitch ? ` (billing switched to ${sent.billingSwitch})` : '';
  return success(
    `send → ${relay} session ${shortId(sent.session.id)}: ${turnPhrase(result)}${billing}`,
    {
      ...turnFields(result, context.openUrlBase),
      ...(sent.billingSwitch ? { billing: sent.billingSwitch } : {}),
      ...(sent.modelNote ? { modelNote: sent.modelNote } : {}),
      ...(wait.note ? { note: wait.note } : {}),
    },
    relay,
  );
};
