/**
 * Waits for the turn a message started, passing the session service's keep-alives on to the agent
 * as progress. When the agent goes away the wait ends and the turn goes on; `wait` picks it up.
 */
import type { TurnResult, WaitInput } from '../ports.ts';
import type { ActionContext } from './action-context.ts';

const FINISHED: readonly string[] = ['done', 'error', 'stopped'];

/**
 * No echo (spec, Watching sessions): tells the subscription service where the caller stands with this turn, so
 * its turn_end is held while the caller waits and dropped once the call returned the finished reply. Best
 * effort: a subscription service that does not answer only costs the caller a second wake-up.
 */
async function notePrompt(input: WaitInput, context: ActionContext, state: 'waiting' | 'reply_returned' | 'not_waiting'): Promise<void> {
  if (input.callerSessionId === undefined) return;
  await context.subscriptions?.notePromptState(input.callerSessionId, input.messageId, state).catch(() => undefined);
}

/** The turn's result after at most `input.waitSeconds`. */
export async function awaitTurn(input: WaitInput, context: ActionContext): Promise<TurnResult> {
  if (input.waitSeconds > 0) await notePrompt(input, context, 'waiting');
  const result = await awaitResult(input, context);
  await notePrompt(input, context, FINISHED.includes(result.status) ? 'reply_returned' : 'not_waiting');
  return result;
}

async function awaitResult(input: WaitInput, context: ActionContext): Promise<TurnResult> {
  let result: TurnResult | undefined;
  for await (const event of context.sessions.wait(input, context.signal)) {
    if (event.kind === 'result') result = event.result;
    else await context.progress(`waiting for the reply of session ${input.sessionId}: ${event.seconds} s`);
  }
  if (result) return result;
  // Nobody reads this: the agent's request is gone. The turn itself goes on.
  if (context.signal.aborted) return { sessionId: input.sessionId, messageId: input.messageId, status: 'running', replyText: '', replyModel: '', error: '', pendingQuestions: [] };
  throw new Error('Wait ended without a result');
}
