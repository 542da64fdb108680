/**
 * archive: archives a session; its queued turns are dropped and a running one is stopped. In the
 * ask and plan modes the user allows it on a card first.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../card-policy.ts';
import { archiveCard } from '../card-text.ts';
import { requireNotOnItself } from '../not-on-itself.ts';
import { success } from '../result.ts';
import { thisRelay } from '../this-relay.ts';
import { shortId } from '../turn-result.ts';

export const archive: Action = async (args, context) => {
  requireArguments('archive', args, ['session']);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('archive', args.session, caller);

  const conversation = await sessions.getConversation(caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: true })) {
    // Reading it first refuses an unknown session before the user is asked, and names it on the card.
    const { session } = await sessions.readSession(caller.userId, args.session, 1);
    await askApproval(archiveCard(relay, session.title), conversation, context);
  }
  const session = await sessions.archiveSession({ userId: caller.userId, callerSessionId: caller.sessionId }, args.session);
  return success(`archive → ${relay} session ${shortId(session.id)} "${session.title}": archived`, { session: session.id, title: session.title, archived: true }, relay);
};
