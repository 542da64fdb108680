/**
 * Waits for the turn a message started, passing the session service's keep-alives on to the agent
 * as progress. When the agent goes away the wait ends and the turn goes on; `wait` picks it up.
 */
import { MessageDelivery, TurnStatus, type TurnResult } from '@relay/proto/relay/session/v1/session';
import type { WaitRequest } from '@relay/proto/relay/session/v1/session_service';
import { PromptState } from '@relay/proto/relay/subscription/v1/subscription_service';
import type { ActionContext } from './action-context.ts';
import { turnStatusName } from '../views/turn-result.ts';
import { reattachedWait } from './reattached-wait.ts';

const FINISHED: readonly string[] = ['done', 'error', 'stopped'];

/** The turn to wait for, for at most waitSeconds on the relay clock; callerSessionId "" when a user (or a paired relay) waits. */
export type WaitInput = WaitRequest;

/**
 * No echo (spec, Watching sessions): tells the subscription service where the caller stands with this turn, so
 * its turn_end is held while the caller waits and dropped once the call returned the finished reply. Best
 * effort: a subscription service that does not answer only costs the caller a second wake-up.
 */
async function notePrompt(input: WaitInput, context: ActionContext, state: PromptState): Promise<void> {
  if (input.callerSessionId === '') return;
  await context.subscriptions?.notePromptState({ watcherSessionId: input.callerSessionId, messageId: input.messageId, state }).catch(() => undefined);
}

/** The turn's result after at most `input.waitSeconds`. */
export async function awaitTurn(input: WaitInput, context: ActionContext): Promise<TurnResult> {
  if (input.waitSeconds > 0) await notePrompt(input, context, PromptState.PROMPT_STATE_WAITING);
  const result = await awaitResult(input, context);
  await notePrompt(
    input,
    context,
    FINISHED.includes(turnStatusName(result.status)) ? PromptState.PROMPT_STATE_REPLY_RETURNED : PromptState.PROMPT_STATE_NOT_WAITING,
  );
  return result;
}

async function awaitResult(input: WaitInput, context: ActionContext): Promise<TurnResult> {
  // No deadline: the wait is bounded by waitSeconds on the relay clock, and the caller's going away ends it.
  const result = await reattachedWait({
    open: (left, signal) => context.sessions.wait({ ...input, waitSeconds: left }, { signal }),
    answerOf: (event) => event.result,
    progress: (seconds) => context.progress(`waiting for the reply of session ${input.sessionId}: ${seconds} s`),
    waitSeconds: input.waitSeconds,
    // An external caller's client drops a call held too long: it answers by then, the turn going on (`wait` picks it up).
    ...(context.answerBy === undefined ? {} : { answerBy: context.answerBy }),
    signal: context.signal,
    ...(context.clock === undefined ? {} : { clock: context.clock }),
  });
  if (result) return result;
  // Nobody reads this: the agent's request is gone. The turn itself goes on.
  return {
    sessionId: input.sessionId,
    messageId: input.messageId,
    status: TurnStatus.TURN_STATUS_RUNNING,
    replyText: '',
    replyModel: '',
    error: '',
    pendingQuestions: [],
    delivery: MessageDelivery.MESSAGE_DELIVERY_UNSPECIFIED,
  };
}
