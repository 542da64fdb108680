/**
 * list_questions: the conversation's asks, pending and those answered, dismissed or withdrawn in the
 * last day, with their status and answer. With session, the asks about that session.
 */
import type { Action } from '../action-context.ts';
import { askView } from '../ask-view.ts';
import { ownRelay } from '../own-relay.ts';
import { count, success } from '../result.ts';
import { shortId } from '../turn-result.ts';

export const listQuestions: Action = async (args, context) => {
  const relay = ownRelay(args.relay, context);
  const { caller, questions, sessions } = context;
  const about = args.session !== undefined && args.session !== caller.sessionId ? args.session : undefined;
  // Another user's session is not found, like one that does not exist.
  if (about !== undefined) await sessions.readSession(caller.userId, about, 1);
  const asks = await questions.listAsks(caller.userId, about === undefined ? { askingSessionId: caller.sessionId, pendingOnly: false } : { aboutSessionId: about, pendingOnly: false });
  const pending = asks.filter((one) => one.status === 'pending').length;
  const whose = about === undefined ? '' : ` about session ${shortId(about)}`;
  return success(
    `list_questions → ${relay}${whose}: ${count(pending, 'pending question')}, ${asks.length - pending} ended in the last day`,
    { questions: asks.map(askView) },
    relay,
  );
};
