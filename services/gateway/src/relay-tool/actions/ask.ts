/**
 * ask: asks the user a question without blocking (spec, Questions that don't block) and returns at
 * once with question_id and status "pending"; the answer comes later as the question_answered event.
 * With session, it asks on behalf of another session of this relay: that needs agent sessions on,
 * is a write (a card in the ask and plan modes) and is not counted by the loop guard; the ask shows
 * in that session, and both it and the asking conversation get the answer.
 */
import type { Action } from '../action-context.ts';
import { requireArguments } from '../arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../card-policy.ts';
import { toolError } from '../errors.ts';
import { ownRelay } from '../own-relay.ts';
import { requireAgentSessions } from '../require-agent-sessions.ts';
import { success } from '../result.ts';
import { quoteStart, shortId } from '../turn-result.ts';

export const ask: Action = async (args, context) => {
  requireArguments('ask', args, ['question']);
  const relay = ownRelay(args.relay, context);
  const { caller, questions, sessions } = context;
  const about = args.session !== undefined && args.session !== caller.sessionId ? args.session : undefined;
  const request = {
    userId: caller.userId,
    askingSessionId: caller.sessionId,
    ...(about === undefined ? {} : { aboutSessionId: about }),
    question: args.question,
    options: args.options ?? [],
    recommendation: args.recommendation ?? '',
    detail: args.detail ?? '',
  };
  if (about !== undefined) {
    requireAgentSessions(context.settings);
    // Another user's session is not found, like one that does not exist.
    const { session } = await sessions.readSession(caller.userId, about, 1);
    if (session.archived) throw toolError('REMOTE_RELAY_ARCHIVED', `ask: session ${about} is archived. Nothing was asked.`);
    await questions.ask({ ...request, dryRun: true });
    const conversation = await sessions.getConversation(caller.sessionId);
    if (needsCard({ mode: conversation.session.mode, writes: true })) {
      const card = {
        title: `Ask a question on behalf of "${session.title}" on ${relay}`,
        lines: [`Question: ${quoteStart(args.question, 200)}`, ...(request.options.length > 0 ? [`Options: ${request.options.join(' · ')}`] : [])],
        asked: `asking on behalf of "${session.title}" on ${relay}`,
        nothing: 'Nothing was asked.',
      };
      await askApproval(card, conversation, context);
    }
  }
  const asked = await questions.ask({ ...request, dryRun: false });
  const on = about === undefined ? '' : ` about session ${shortId(about)}`;
  return success(`ask → ${relay}: question ${asked.id}${on} pending`, { question_id: asked.id, status: 'pending' }, relay);
};
