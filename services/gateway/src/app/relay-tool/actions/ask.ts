/**
 * ask: asks the user a question without blocking (spec, Questions that don't block) and returns at
 * once with question_id and status "pending"; the answer comes later as the question_answered event.
 * With session, it asks on behalf of another session of this relay: that needs agent sessions on,
 * is a write (a card in the ask and plan modes) and is not counted by the loop guard; the ask shows
 * in that session, and both it and the asking conversation get the answer.
 *
 * On a paired relay the ask is about one of its sessions and is kept there (needs the relay unlocked and
 * Agents may at least read_and_prompt; it keeps to the hop limit); the pairing service polls it and the answer
 * comes as question_answered via that relay. A relay before 0.9.16 keeps no asks (REMOTE_RELAY_UNSUPPORTED).
 */
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { askApproval } from '../ask-approval.ts';
import { needsCard } from '../../../domain/card-policy.ts';
import { toolError } from '../../../domain/errors.ts';
import { compareVersions } from '../../../domain/version.ts';
import { checkPairedRelayCall } from '../../../domain/paired-relay-policy.ts';
import { pairingView } from '../../views/pairing-view.ts';
import { resolveRelay } from '../../../domain/relay-name.ts';
import { ownRelay } from '../../../domain/own-relay.ts';
import { requireAgentSessions } from '../../../domain/require-agent-sessions.ts';
import { success, type Success } from '../../../domain/result.ts';
import { quoteStart } from '../../../domain/one-line.ts';
import { shortId } from '../../views/turn-result.ts';
import { remoteEventsOwner } from '../optional-owners.ts';
import type { PairedRelay } from '@relay/proto/relay/pairing/v1/pairing_service';
import { answered } from '../../../domain/answers.ts';
import { getConversation, readSession } from '../../session-reads.ts';
import { REMOTE_DEADLINE_MS } from '../../ports.ts';
import { keepAsk } from '../../asks-about.ts';

export const ask = defineAction({
  name: 'ask',
  args: argumentsOf('relay', 'session', 'question', 'options', 'recommendation', 'detail'),
  relay: 'optional',
  write: true,
  toPaired: { level: 'read_and_prompt', forwarded: false },
  handler: runAsk,
});

/** The version that first keeps asks (spec, Questions that don't block). */
const ASKS_SINCE = '0.9.16';

async function runAsk(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['question']);
  const target = resolveRelay(args.relay, context.relayName, context.paired);
  if (target.kind === 'paired') return askThere(args, target.relay, context);
  const relay = ownRelay(args.relay, context);
  const { caller, sessions } = context;
  const about = args.session !== undefined && args.session !== caller.sessionId ? args.session : undefined;
  const request = {
    userId: caller.userId,
    askingSessionId: caller.sessionId,
    aboutSessionId: about ?? '',
    question: args.question,
    options: args.options ?? [],
    recommendation: args.recommendation ?? '',
    detail: args.detail ?? '',
  };
  if (about !== undefined) {
    requireAgentSessions(context.settings);
    // Another user's session is not found, like one that does not exist.
    const { session } = await readSession(sessions, caller.userId, about, 1);
    if (session.archived) throw toolError('REMOTE_RELAY_ARCHIVED', `ask: session ${about} is archived. Nothing was asked.`);
    await keepAsk(context, { ...request, dryRun: true });
    const conversation = await getConversation(sessions, caller.sessionId);
    if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
      const card = {
        title: `Ask a question on behalf of "${session.title}" on ${relay}`,
        lines: [`Question: ${quoteStart(args.question, 200)}`, ...(request.options.length > 0 ? [`Options: ${request.options.join(' · ')}`] : [])],
        asked: `asking on behalf of "${session.title}" on ${relay}`,
        nothing: 'Nothing was asked.',
      };
      await askApproval(card, conversation, context);
    }
  }
  const asked = answered((await keepAsk(context, { ...request, dryRun: false })).ask, 'Ask', 'ask');
  const on = about === undefined ? '' : ` about session ${shortId(about)}`;
  return success(`ask → ${relay}: question ${asked.id}${on} pending`, { question_id: asked.id, status: 'pending' }, relay);
}

/** ask with a paired relay: checked here and there before the card, then kept there and polled from here. */
async function askThere(args: ToolArguments & { question: string }, relay: PairedRelay, context: ActionContext) {
  const { caller, sessions } = context;
  if (args.session === undefined || args.session === caller.sessionId) {
    throw toolError(
      'REMOTE_RELAY_INVALID_INPUT',
      `ask on relay "${relay.name}" needs session: the session there it is about. An ask about this conversation is kept on this relay (leave relay out). Nothing was asked.`,
    );
  }
  const conversation = await getConversation(sessions, caller.sessionId);
  checkPairedRelayCall({
    action: context.action,
    relay: pairingView(relay),
    unlocks: conversation.unlockedRelays,
    turnProvenance: conversation.turnProvenance,
    sendsPrompt: true,
  });
  if (relay.version !== '' && compareVersions(relay.version, ASKS_SINCE) < 0) {
    throw toolError('REMOTE_RELAY_UNSUPPORTED', `Relay "${relay.name}" runs OAR ${relay.version}, which keeps no asks (${ASKS_SINCE}). Nothing was asked.`, {
      version: relay.version,
      needs: ASKS_SINCE,
    });
  }
  const remote = remoteEventsOwner(context);
  const request = {
    relay: relay.name,
    userId: caller.userId,
    askingSessionId: caller.sessionId,
    aboutSessionId: args.session,
    question: args.question,
    options: args.options ?? [],
    recommendation: args.recommendation ?? '',
    detail: args.detail ?? '',
  };
  const options = { deadlineMs: REMOTE_DEADLINE_MS };
  await remote.openRemoteAsk({ ...request, dryRun: true }, options);
  if (needsCard({ mode: conversation.session.mode, writes: context.action.write })) {
    const card = {
      title: `Ask a question on behalf of session ${shortId(args.session)} on ${relay.name}`,
      lines: [`Question: ${quoteStart(args.question, 200)}`, ...(request.options.length > 0 ? [`Options: ${request.options.join(' · ')}`] : [])],
      asked: `asking on behalf of session ${shortId(args.session)} on ${relay.name}`,
      nothing: 'Nothing was asked.',
    };
    await askApproval(card, conversation, context);
  }
  const asked = answered((await remote.openRemoteAsk({ ...request, dryRun: false }, options)).ask, 'OpenRemoteAsk', 'ask');
  return success(
    `ask → ${relay.name}: question ${asked.id} about session ${shortId(args.session)} pending`,
    { question_id: asked.id, status: 'pending' },
    relay.name,
  );
}
