/**
 * wait: keeps waiting for a reply that send or create_session did not get in time, for as long as
 * wait_seconds asks, up to the relay's longest wait per tool call (a note says when it was capped).
 * Reading and waiting are never gated by cards.
 *
 * An external session may wait on its own conversation (no message_id): the call returns as soon as a
 * message waits unread for it (a wake-up, an answer, a schedule firing) and reads it, like read_session.
 */
import { sessionReadView } from '../../views/session-view.ts';
import type { TurnResult } from '@relay/proto/relay/session/v1/session';
import type { ActionContext } from '../action-context.ts';
import { defineAction } from '../define-action.ts';
import { withTreeSpent } from '../tree-budget.ts';
import type { RelayCallOrigin } from '../relay-call-origin.ts';
import { argumentsOf, type ToolArguments } from '../../../domain/tool-arguments.ts';
import { requireArguments } from '../../../domain/require-arguments.ts';
import { awaitPending } from '../await-pending.ts';
import { READ_LAST_MAX } from '../../../domain/limits.ts';
import { requireNotOnItself } from '../../../domain/not-on-itself.ts';
import { count, success, type Success } from '../../../domain/result.ts';
import { thisRelay } from '../../../domain/this-relay.ts';
import { readSession } from '../../session-reads.ts';
import { awaitTurn } from '../await-turn.ts';
import { shortId, turnFields, turnPhrase } from '../../views/turn-result.ts';
import { planWait, type WaitPlan } from '../../../domain/wait-seconds.ts';

export const wait = defineAction({
  name: 'wait',
  args: argumentsOf('relay', 'session', 'message_id', 'wait_seconds'),
  relay: 'required',
  write: false,
  toPaired: { level: 'read', forwarded: true },
  handler: runWait,
  fromPaired: serveWait,
});

async function runWait(args: ToolArguments, context: ActionContext): Promise<Success> {
  requireArguments(context.action, args, ['session']);
  const plan = planWait('wait', args.wait_seconds, context.settings.maxWaitSeconds);
  const relay = thisRelay(args.relay, context);
  const { caller } = context;
  if (caller.external === true && args.session === caller.sessionId) return waitOnOwnConversation(relay, plan, context);
  requireArguments(context.action, args, ['session', 'message_id']);
  requireNotOnItself('wait', args.session, caller);

  const result = await awaitTurn(
    { userId: caller.userId, callerSessionId: caller.sessionId, sessionId: args.session, messageId: args.message_id, waitSeconds: plan.waitSeconds },
    context,
  );
  return waitedResult(relay, result, plan.note, context.openUrlBase);
}

/** The external agent's own conversation: what arrives for it, read (and so marked read) as it arrives. */
async function waitOnOwnConversation(relay: string, plan: WaitPlan, context: ActionContext): Promise<Success> {
  const { caller, sessions } = context;
  const note = plan.note ? { note: plan.note } : {};
  const pending = await awaitPending(context, plan.waitSeconds);
  if (pending === undefined) {
    return success(
      `wait → ${relay} session ${shortId(caller.sessionId)} (your own): nothing arrived within ${plan.waitSeconds} s`,
      { session: caller.sessionId, arrived: 0, messages: [], ...note },
      relay,
    );
  }
  const read = await readSession(sessions, caller.userId, caller.sessionId, Math.min(READ_LAST_MAX, pending.count), caller.sessionId);
  const { messages, note: cut } = sessionReadView(read);
  const notes = [plan.note, cut].filter((text) => text !== undefined);
  return success(
    `wait → ${relay} session ${shortId(caller.sessionId)} (your own): ${count(messages.length, 'message')} arrived`,
    { session: caller.sessionId, arrived: messages.length, messages, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) },
    relay,
  );
}

async function serveWait(args: ToolArguments, context: ActionContext, origin: RelayCallOrigin): Promise<Success> {
  requireArguments(context.action, args, ['session', 'message_id']);
  const plan = planWait('wait', args.wait_seconds, context.settings.maxWaitSeconds);
  const result = await awaitTurn(
    { userId: origin.userId, callerSessionId: '', sessionId: args.session, messageId: args.message_id, waitSeconds: plan.waitSeconds },
    context,
  );
  // What the session's tree spent by the time the wait ends: the calling relay counts it in its own tree.
  return withTreeSpent(waitedResult(context.relayName, result, plan.note, context.openUrlBase), context.sessions, {
    userId: origin.userId,
    sessionId: args.session,
  });
}

function waitedResult(relay: string, result: TurnResult, waitNote: string | undefined, openUrlBase: string | undefined): Success {
  return success(
    `wait → ${relay} session ${shortId(result.sessionId)}: ${turnPhrase(result)}`,
    { ...turnFields(result, openUrlBase), ...(waitNote ? { note: waitNote } : {}) },
    relay,
  );
}
