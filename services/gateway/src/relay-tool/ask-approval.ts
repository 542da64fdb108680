/**
 * An approval card in the caller's conversation (DESIGN.md, Approval card): raised through the
 * question service, waited for at most the relay's longest wait, with progress to the agent while
 * the user decides. Allow returns; anything else refuses the call before it changes anything.
 */
import type { Card, Conversation } from '../ports.ts';
import type { ActionContext } from './action-context.ts';
import type { CardText } from './card-text.ts';
import { toolError } from './errors.ts';

/** Returns once the user chose Allow; throws REMOTE_RELAY_NO_ACTIVE_TURN or REMOTE_RELAY_PERMISSION otherwise. */
export async function askApproval(card: CardText, conversation: Conversation, context: ActionContext): Promise<void> {
  if (!conversation.hasRunningTurn) {
    throw toolError(
      'REMOTE_RELAY_NO_ACTIVE_TURN',
      `The user must allow ${card.asked} on a card, but this conversation has no running turn to show it in. ${card.nothing}`,
    );
  }
  const { caller, questions, settings } = context;
  const raised = await questions.raiseCard({ userId: caller.userId, sessionId: caller.sessionId, kind: 'approval', title: card.title, lines: card.lines });
  let decided: Card | undefined;
  for await (const event of questions.awaitCard(raised.id, settings.maxWaitSeconds, context.signal)) {
    if (event.kind === 'card') decided = event.card;
    else await context.progress(`waiting for the user to decide: ${card.title} (${event.seconds} s)`);
  }
  if (decided?.status === 'allowed') return;
  if (decided?.status === 'denied') throw toolError('REMOTE_RELAY_PERMISSION', `The user denied ${card.asked}. ${card.nothing}`);
  throw toolError(
    'REMOTE_RELAY_PERMISSION',
    `The user did not allow ${card.asked} within ${settings.maxWaitSeconds} s (card ${raised.id}). ${card.nothing} Ask the user, then try again.`,
  );
}
