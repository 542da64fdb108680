/**
 * The loop guard before a prompt to another agent (decisions.md, Across relays): a conversation may
 * send 30 (send, create_session) before the user is asked on a card; Allow grants another 30; Deny,
 * or no running turn to ask in, refuses with REMOTE_RELAY_LOOP_GUARD. The count lives in the session
 * service (CountAgentPrompt), which resets it when the user writes in the conversation.
 */
import { isAppError } from '@relay/errors';
import type { Conversation } from '../../domain/answers.ts';
import type { ActionContext } from './action-context.ts';
import { askApproval } from './ask-approval.ts';
import { toolError } from '../../domain/errors.ts';

/** Passes the loop guard for one prompt (asking the user when it is used up) and counts it. `nothing` ends a refusal. */
export async function passLoopGuard(conversation: Conversation, context: ActionContext, nothing: string): Promise<void> {
  const { caller, sessions } = context;
  const guard = await sessions.countAgentPrompt({ sessionId: caller.sessionId, dryRun: true });
  if (guard.usedUp) {
    const card = {
      title: 'Let the agent keep prompting other agents?',
      lines: [`This conversation has sent ${guard.sent} prompts to other agents since you last wrote here.`, 'Allow lets it send 30 more.'],
      asked: 'more prompts to other agents',
      nothing,
    };
    try {
      await askApproval(card, conversation, context);
    } catch (error) {
      if (isAppError(error) && (error.code === 'REMOTE_RELAY_PERMISSION' || error.code === 'REMOTE_RELAY_NO_ACTIVE_TURN')) {
        throw toolError(
          'REMOTE_RELAY_LOOP_GUARD',
          `Loop guard: this conversation has sent ${guard.sent} prompts to other agents since the user last wrote, and the user did not allow more (${error.message}) ${nothing} Stop prompting other agents and tell the user.`,
          { sent: guard.sent },
        );
      }
      throw error;
    }
    await sessions.grantAgentPrompts({ sessionId: caller.sessionId });
  }
  await sessions.countAgentPrompt({ sessionId: caller.sessionId, dryRun: false });
}
