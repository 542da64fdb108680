/**
 * stop: stops the turn that is running in a session, as Stop does in the UI. The result says
 * whether a stop was requested or nothing was running. In the ask and plan modes the user allows it
 * on a card first.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../card-policy.ts';
import { stopCard } from '../card-text.ts';
import { requireNotOnItself } from '../not-on-itself.ts';
import { success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import { shortId } from '../turn-result.ts';

export const stop: Action = async (args, context) => {
  requireArguments('stop', args, ['session']);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('stop', args.session, caller);

  const conversation = await sessions.getConversation(caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: true })) {
    // Reading it first refuses an unknown session before the user is asked, and names it on the card.
    const { session } = await sessions.readSession(caller.userId, args.session, 1);
    await askApproval(stopCard(relay, session.title), conversation, context);
  }
  const { stopRequested } = await sessions.stopTurn({ userId: caller.userId, callerSessionId: caller.sessionId }, args.session);
  return success(
    `stop → ${relay} session ${shortId(args.session)}: ${stopRequested ? 'stop requested' : 'nothing was running'}`,
    { session: args.session, stopRequested },
    relay,
  );
};
