/**
 * archive: archives a session; its queued turns are dropped and a running one is stopped. In the
 * ask and plan modes the user allows it on a card first.
 */
import type { Session } from '@relay/proto/relay/session/v1/session';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { archiveCard } from '../../../domain/card-text.ts';
import { requireNotOnItself } from '../../../domain/not-on-itself.ts';
import { checkedOnly, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { shortId } from '../../views/turn-result.ts';
import { answered } from '../../../domain/answers.ts';
import { getConversation, readSession } from '../../session-reads.ts';

export const archive = defineAction({
  name: 'archive',
  args: argumentsOf('relay', 'session'),
  relay: 'required',
  write: true,
  toPaired: { level: 'full', forwarded: true },
  handler: runArchive,
  fromPaired: serveArchive,
});

async function runArchive(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const relay = thisRelay(args.relay, context);
  const { caller, sessions } = context;
  requireNotOnItself('archive', args.session, caller);

  const conversation = await getConversation(sessions, caller.sessionId);
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    // Reading it first refuses an unknown session before the user is asked, and names it on the card.
    const { session } = await readSession(sessions, caller.userId, args.session, 1);
    await askApproval(archiveCard(relay, session.title), conversation, context);
  }
  const { session } = await sessions.archiveSession({ userId: caller.userId, callerSessionId: caller.sessionId, sessionId: args.session });
  return archivedResult(relay, session);
}

async function serveArchive(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  if (origin.dryRun)
    return checkedOnly('archive', context.relayName, { session: (await readSession(context.sessions, origin.userId, args.session, 1)).session.id });
  const { session } = await context.sessions.archiveSession({ userId: origin.userId, callerSessionId: '', sessionId: args.session });
  return archivedResult(context.relayName, session);
}

function archivedResult(relay: string, archived: Session | undefined): Success {
  const session = answered(archived, 'ArchiveSession', 'session');
  return success(
    `archive → ${relay} session ${shortId(session.id)} "${session.title}": archived`,
    { session: session.id, title: session.title, archived: true },
    relay,
  );
}
