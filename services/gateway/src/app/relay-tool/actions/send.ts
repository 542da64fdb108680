/**
 * send: queues a prompt in an existing session and waits for the reply. With provider ("claude" or
 * "claude-api") it also moves a Claude session's billing, in one call: the session service checks
 * both before anything is queued. The prompt carries the provenance of the caller's turn. In the
 * ask and plan modes the user allows it on a card first.
 */
import { SendMessageRequest, SendMessageResponse } from '@relay/proto/relay/session/v1/session_service';
import type { Session, TurnResult } from '@relay/proto/relay/session/v1/session';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { madeBefore, madeOnce, type OutcomeCodec } from '../made-once.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { awaitTurn } from '../await-turn.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { sendCard } from '../../../domain/card-text.ts';
import { requireNotOnItself } from '../../../domain/not-on-itself.ts';
import { passLoopGuard } from '../pass-loop-guard.ts';
import { provenanceOf } from '../../../domain/provenance.ts';
import { checkedOnly, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId, turnFields, turnPhrase } from '../../views/turn-result.ts';
import { planWait } from '../../../domain/wait-seconds.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation } from '../../session-reads.ts';
import type { SessionClient } from '../../ports.ts';
import { budgetArgument } from '../../../domain/budget-argument.ts';
import { refreshRemoteSpend, withBudgetNote, withTreeSpent } from '../tree-budget.ts';

export const send = defineAction({
  name: 'send',
  args: argumentsOf('relay', 'session', 'text', 'provider', 'model', 'mode', 'effort', 'wait_seconds', 'budget'),
  relay: 'required',
  write: true,
  nothing: 'Nothing was sent.',
  toPaired: {
    level: 'read_and_prompt',
    forwarded: true,
    sendsPrompt: true,
    features: [
      {
        since: '0.9.18',
        applies: (args) => args.provider !== undefined,
        refusal: 'Relay "{relay}" runs OAR {version}, which cannot switch a session\'s billing (0.9.18); nothing was sent.',
      },
    ],
  },
  handler: runSend,
  fromPaired: serveSend,
});

async function runSend(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session', 'text']);
  const wait = planWait('send', args.wait_seconds, context.settings.maxWaitSeconds);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('send', args.session, caller);

  const conversation = await getConversation(sessions, caller.sessionId);
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
    // This relay's extension: narrows the budget of a session this conversation started.
    budget: budgetArgument(args.budget, 'Nothing was sent.'),
  };
  // A task taken over after its message was sent goes on from there: the checks before it were passed.
  let sent = madeBefore(context, 'send', SENT);
  if (sent === undefined) {
    // The session service refuses a prompt into a held tree: what the tree spent on paired relays is asked for first.
    await refreshRemoteSpend(context, { userId: caller.userId, sessionId: args.session });
    const checked = await sendMessage(sessions, { ...message, dryRun: true });
    if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
      const choice = { text: args.text, model: args.model, effort: args.effort, mode: args.mode, billingSwitch: checked.billingSwitch };
      await askApproval(sendCard(relay, checked.session, choice), conversation, context);
    }
    await passLoopGuard(conversation, context, 'Nothing was sent.');
    // Sent once: a replica that takes a task over reads the message this call sent.
    sent = await madeOnce(context, 'send', () => sendMessage(sessions, { ...message, dryRun: false }), SENT);
  }
  const result = await awaitTurn(
    { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: sent.session.id, messageId: sent.messageId, waitSeconds: wait.waitSeconds },
    context,
  );
  return withBudgetNote(sentResult(relay, sent, result, wait.note, context.openUrlBase), sessions, caller);
}

async function serveSend(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['session', 'text']);
  const plan = planWait('send', args.wait_seconds, context.settings.maxWaitSeconds);
  const { sessions, relayName } = context;
  const userId = origin.userId;
  const message = {
    userId,
    sessionId: args.session,
    text: args.text,
    provider: args.provider,
    model: args.model,
    effort: args.effort,
    mode: args.mode,
    provenance: origin.provenance,
    // The budget the calling relay carries: it narrows this session's, enforced here.
    budget: budgetArgument(args.budget, 'Nothing was sent.'),
  };
  if (origin.dryRun) {
    const checked = await sendMessage(sessions, { ...message, dryRun: true });
    return checkedOnly('send', relayName, { session: checked.session.id, ...(checked.modelNote ? { modelNote: checked.modelNote } : {}) });
  }
  const sent = await sendMessage(sessions, { ...message, dryRun: false });
  const result = await awaitTurn(
    { userId, callerSessionId: '', sessionId: sent.session.id, messageId: sent.messageId, waitSeconds: plan.waitSeconds },
    context,
  );
  return withTreeSpent(sentResult(relayName, sent, result, plan.note, context.openUrlBase), sessions, { userId, sessionId: sent.session.id });
}

type Sent = SendMessageResponse & { session: Session };

/** A message sent, as a task's progress keeps it. */
const SENT: OutcomeCodec<Sent> = {
  toJSON: (sent) => SendMessageResponse.toJSON(sent),
  fromJSON: (json) => {
    const sent = SendMessageResponse.fromJSON(json);
    return { ...sent, session: answered(sent.session, 'SendMessage', 'session') };
  },
};

/** SendMessage, its session always there; what the call leaves out is the session's or the relay's default. */
async function sendMessage(sessions: SessionClient, message: Partial<SendMessageRequest>): Promise<Sent> {
  const sent = await sessions.sendMessage(SendMessageRequest.fromPartial(message));
  return { ...sent, session: answered(sent.session, 'SendMessage', 'session') };
}

/** send's result: the turn, and a billing switch or model note the session service reported. */
function sentResult(relay: string, sent: Sent, result: TurnResult, waitNote: string | undefined, openUrlBase: string | undefined): Success {
  const billing = sent.billingSwitch ? ` (billing switched to ${sent.billingSwitch})` : '';
  return success(
    `send → ${relay} session ${shortId(sent.session.id)}: ${turnPhrase(result)}${billing}`,
    {
      ...turnFields(result, openUrlBase),
      ...(sent.billingSwitch ? { billing: sent.billingSwitch } : {}),
      ...(sent.modelNote ? { modelNote: sent.modelNote } : {}),
      ...(waitNote ? { note: waitNote } : {}),
    },
    relay,
  );
}
