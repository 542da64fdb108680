/**
 * stop: stops the turn that is running in a session, as Stop does in the UI. The result says
 * whether a stop was requested or nothing was running. In the ask and plan modes the user allows it
 * on a card first.
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { stopCard } from '../../../domain/card-text.ts';
import { requireNotOnItself } from '../../../domain/not-on-itself.ts';
import { checkedOnly, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId } from '../../views/turn-result.ts';
import { getConversation, readSession } from '../../session-reads.ts';

export const stop = defineAction({
  name: 'stop',
  args: argumentsOf('relay', 'session'),
  relay: 'required',
  write: true,
  toPaired: { level: 'full', forwarded: true },
  handler: runStop,
  fromPaired: serveStop,
});

async function runStop(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('stop', args.session, caller);

  const conversation = await getConversation(sessions, caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    // Reading it first refuses an unknown session before the user is asked, and names it on the card.
    const { session } = await readSession(sessions, caller.userId, args.session, 1);
    await askApproval(stopCard(relay, session.title), conversation, context);
  }
  const { stopRequested } = await sessions.stopTurn({ userId: caller.userId, callerSessionId: caller.sessionId, sessionId: args.session });
  return stoppedResult(relay, args.session, stopRequested);
}

async function serveStop(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  if (origin.dryRun)
    return checkedOnly('stop', context.relayName, { session: (await readSession(context.sessions, origin.userId, args.session, 1)).session.id });
  const { stopRequested } = await context.sessions.stopTurn({ userId: origin.userId, callerSessionId: '', sessionId: args.session });
  return stoppedResult(context.relayName, args.session, stopRequested);
}

function stoppedResult(relay: string, sessionId: string, stopRequested: boolean): Success {
  return success(
    `stop → ${relay} session ${shortId(sessionId)}: ${stopRequested ? 'stop requested' : 'nothing was running'}`,
    { session: sessionId, stopRequested },
    relay,
  );
}
