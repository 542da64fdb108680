/**
 * read_session: the most recent messages of a session (`last`, default 10, at most 100) with what
 * is going on there: its state, a reply still being written (inFlight) and the pendingQuestions
 * waiting for an answer, each with its kind (ask, or ask_user for a card the session waits on). For
 * a session in a group, group adds the other members, up to 50, each with id, title, role, state
 * and archived when it is archived.
 */
import { withPendingAsks } from '../../views/pending-asks.ts';
import { pendingAsksAbout } from '../../asks-about.ts';
import { answered, type SessionRead } from '../../../domain/answers.ts';
import { sessionReadView, sessionStateName } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { toolError } from '../../../domain/errors.ts';
import { READ_LAST_DEFAULT, READ_LAST_MAX } from '../../../domain/limits.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId } from '../../views/turn-result.ts';

export const readSession = defineAction({
  name: 'read_session',
  args: argumentsOf('relay', 'session', 'last'),
  relay: 'required',
  write: false,
  answersAtOnce: true,
  toPaired: { level: 'read', forwarded: true },
  handler: runReadSession,
  fromPaired: (args, context) => runReadSession(args, context),
});

async function runReadSession(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const { caller } = context;
  const ownInbox = caller.external === true && args.session === caller.sessionId;
  // An external agent reading itself sees at least what waited for it (the read marks all of it read).
  const pendingCount =
    ownInbox && args.last === undefined ? ((await context.sessions.getPendingMessages({ sessionId: caller.sessionId })).pending?.count ?? 0) : 0;
  const last = args.last ?? Math.min(READ_LAST_MAX, Math.max(READ_LAST_DEFAULT, pendingCount));
  if (last < 1 || last > READ_LAST_MAX) {
    throw toolError('REMOTE_RELAY_INVALID_INPUT', `read_session: last must be from 1 to ${READ_LAST_MAX}; got ${last}.`);
  }
  const relay = thisRelay(args.relay, context);
  const { pending, session, ...answer } = await context.sessions.readSession({
    userId: caller.userId,
    sessionId: args.session,
    last,
    readerSessionId: ownInbox ? caller.sessionId : '',
    pendingForSessionId: context.pendingAlong?.sessionId,
  });
  context.pendingAlong?.answered(pending);
  const sessionRead = { ...answer, session: answered(session, 'ReadSession', 'session') };
  const read = withPendingAsks(sessionRead, await pendingAsksAbout(context, caller.userId, sessionRead));
  return success(summaryOf(relay, read), sessionReadView(read), relay);
}

function summaryOf(relay: string, read: SessionRead): string {
  const parts = [count(read.messages.length, 'message'), sessionStateName(read.session.state)];
  if (read.inFlight !== '') parts.push('a reply in flight');
  if (read.pendingQuestions.length > 0) parts.push(count(read.pendingQuestions.length, 'pending question'));
  return `read_session → ${relay} session ${shortId(read.session.id)} "${read.session.title}": ${parts.join(', ')}`;
}
