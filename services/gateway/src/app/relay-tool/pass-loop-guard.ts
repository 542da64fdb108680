/**
 * The loop guard before a prompt to another agent (domain/loop-guard.ts): the count lives in the session service
 * (CountAgentPrompt), which resets it when the user writes in the conversation.
 */
import { isAppError } from '@relay/errors';
import type { Conversation } from '../../domain/answers.ts';
import { loopGuardCard, loopGuardRefusal } from '../../domain/loop-guard.ts';
import type { ActionContext } from './action-context.ts';
import { askApproval } from './ask-approval.ts';
import { madeBefore, madeOnce } from './made-once.ts';
import { CountAgentPromptResponse } from '@relay/proto/relay/session/v1/session_service';

/** Passes the loop guard for one prompt (asking the user when it is used up) and counts it. `nothing` ends a refusal. */
export async function passLoopGuard(conversation: Conversation, context: ActionContext, nothing: string): Promise<void> {
  const { caller, sessions } = context;
  // A task taken over after this prompt was counted: the guard was passed, and asked again it would count this prompt.
  if (madeBefore(context, COUNTED, CountAgentPromptResponse) !== undefined) return;
  const guard = await sessions.countAgentPrompt({ sessionId: caller.sessionId, dryRun: true });
  if (guard.usedUp) {
    try {
      await askApproval(loopGuardCard(guard.sent, nothing), conversation, context);
    } catch (error) {
      if (isAppError(error) && (error.code === 'REMOTE_RELAY_PERMISSION' || error.code === 'REMOTE_RELAY_NO_ACTIVE_TURN')) {
        throw loopGuardRefusal(guard.sent, error.message, nothing);
      }
      throw error;
    }
    await sessions.grantAgentPrompts({ sessionId: caller.sessionId });
  }
  // Counted once: a replica that takes a task over finds this prompt counted.
  await madeOnce(context, COUNTED, () => sessions.countAgentPrompt({ sessionId: caller.sessionId, dryRun: false }), CountAgentPromptResponse);
}

/** The loop guard's count of this prompt, as a task's effects name it. */
const COUNTED = 'count_agent_prompt';
