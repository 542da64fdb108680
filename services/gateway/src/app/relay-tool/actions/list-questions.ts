/**
 * list_questions: the conversation's asks, pending and those answered, dismissed or withdrawn in the
 * last day, with their status and answer. With session, the asks about that session. On a paired relay,
 * the asks this conversation asked there, as that relay lists them.
 */
import { boundedFields } from '../../views/session-view.ts';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { askView } from '../../views/ask-view.ts';
import { ownRelay } from '../../../domain/own-relay.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { shortId } from '../../views/turn-result.ts';
import { remoteEventsOwner } from '../optional-owners.ts';
import type { RemoteAsk } from '@relay/proto/relay/pairing/v1/remote_events';
import { getConversation, readSession } from '../../session-reads.ts';
import { REMOTE_DEADLINE_MS } from '../../ports.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { askStatusName } from '../../views/question-view.ts';

export const listQuestions = defineAction({
  name: 'list_questions',
  args: argumentsOf('relay', 'session'),
  relay: 'optional',
  write: false,
  answersAtOnce: true,
  inboxBlind: true,
  toPaired: { level: 'read', forwarded: false },
  handler: runListQuestions,
});

async function runListQuestions(args: ToolArguments, context: ActionContext): Promise<Success> {
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') return listThere(target.relay, args.session, context);
  const relay = ownRelay(args.relay, context);
  const { caller, questions, sessions } = context;
  const about = args.session !== undefined && args.session !== caller.sessionId ? args.session : undefined;
  // Another user's session is not found, like one that does not exist.
  if (about !== undefined) await readSession(sessions, caller.userId, about, 1);
  const { asks } = await questions.listAsks({
    userId: caller.userId,
    askingSessionId: about === undefined ? caller.sessionId : '',
    aboutSessionId: about ?? '',
    pendingOnly: false,
  });
  const pending = asks.filter((one) => askStatusName(one.status) === 'pending').length;
  const whose = about === undefined ? '' : ` about session ${shortId(about)}`;
  return success(
    `list_questions → ${relay}${whose}: ${count(pending, 'pending question')}, ${asks.length - pending} ended in the last day`,
    { questions: asks.map(askView) },
    relay,
  );
}

async function listThere(relay: PairedRelay, session: string | undefined, context: ActionContext) {
  const { caller, sessions } = context;
  const conversation = await getConversation(sessions, caller.sessionId);
  checkPairedRelayCall({
    action: context.action,
    relay: pairingView(relay),
    unlocks: conversation.unlockedRelays,
    turnProvenance: conversation.turnProvenance,
    sendsPrompt: false,
  });
  const { asks: all } = await remoteEventsOwner(context).listRemoteAsks(
    { relay: relay.name, askingSessionId: caller.sessionId },
    { deadlineMs: REMOTE_DEADLINE_MS },
  );
  const asks = session === undefined ? all : all.filter((ask) => ask.aboutSessionId === session);
  const pending = asks.filter((ask) => ask.status === 'pending').length;
  const whose = session === undefined ? '' : ` about session ${shortId(session)}`;
  return success(
    `list_questions → ${relay.name}${whose}: ${count(pending, 'pending question')}, ${asks.length - pending} ended in the last day`,
    { questions: asks.map((ask) => remoteAskView(ask, caller.sessionId)) },
    relay.name,
  );
}

/** An ask kept on a paired relay as list_questions shows it (askView's fields, bounded the same way). */
function remoteAskView(ask: RemoteAsk, askedBy: string) {
  const { question, answer, ...bounded } = boundedFields({ question: ask.question, answer: ask.status === 'answered' ? ask.answer : '' });
  return {
    question_id: ask.id,
    question,
    options: ask.options,
    status: ask.status,
    session: ask.aboutSessionId,
    askedBy,
    ...(ask.status === 'answered' ? { answer, choice: ask.choice } : {}),
    ...(ask.via ? { via: ask.via } : {}),
    createdAt: ask.createdAt?.toISOString() ?? null,
    endedAt: ask.endedAt?.toISOString() ?? null,
    ...bounded,
  };
}
