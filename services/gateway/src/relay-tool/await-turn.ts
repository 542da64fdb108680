/**
 * Waits for the turn a message started, passing the session service's keep-alives on to the agent
 * as progress. When the agent goes away the wait ends and the turn goes on; `wait` picks it up.
 */
import type { TurnResult, WaitInput } from '../ports.ts';
import type { ActionContext } from './action-context.ts';

/** The turn's result after at most `input.waitSeconds`. */
export async function awaitTurn(input: WaitInput, context: ActionContext): Promise<TurnResult> {
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
