/**
 * An approval card in the caller's conversation (DESIGN.md, Approval card): raised through the
 * question service, waited for at most the relay's longest wait, with progress to the agent while
 * the user decides. Allow returns; anything else refuses the call before it changes anything.
 *
 * An external session (an MCP client the user runs) has no turn of its own: the call in flight is its
 * running turn (decisions.md, External sessions). Its card names it, is keyed by the call (call-key.ts), and
 * stays in the Inbox when the wait runs out, so the same call made again picks up the decision. A 2026 client that opens
 * URLs (cardsAnswerAtOnce) is not kept waiting at all: its card is keyed by the call too and answered at once, pending.
 * A call run as an MCP task (effects) keys its card by the call as well, so the replica that takes it over waits on it.
 */
import type { ActionContext } from './action-context.ts';
import { raisedCard } from './raised-card.ts';
import { reattachedWait } from './reattached-wait.ts';
import { callKeyOf } from '../../domain/call-key.ts';
import type { CardText } from '../../domain/card-text.ts';
import { toolError } from '../../domain/errors.ts';
import { shortId } from '../views/turn-result.ts';
import { CardKind, type Card, type RaiseCardRequest } from '@relay/proto/relay/question/v1/question_service';
import { cardStatusName } from '../views/question-view.ts';
import { isExternal } from '../views/session-view.ts';
import type { Conversation } from '../../domain/answers.ts';

/** Returns once the user chose Allow; throws REMOTE_RELAY_NO_ACTIVE_TURN or REMOTE_RELAY_PERMISSION otherwise. */
export async function askApproval(card: CardText, conversation: Conversation, context: ActionContext): Promise<void> {
  const external = isExternal(conversation.session);
  if (!conversation.hasRunningTurn && !external) {
    throw toolError(
      'REMOTE_RELAY_NO_ACTIVE_TURN',
      `The user must allow ${card.asked} on a card, but this conversation has no running turn to show it in. ${card.nothing}`,
    );
  }
  const { caller, questions, settings } = context;
  const request: Omit<RaiseCardRequest, 'raiseId'> = {
    userId: caller.userId,
    sessionId: caller.sessionId,
    kind: CardKind.CARD_KIND_APPROVAL,
    title: card.title,
    lines: card.lines,
    options: [],
    callKey: '',
  };
  if (external) {
    const { session } = conversation;
    request.lines = [...card.lines, `Asked by the external session "${session.title}" (${shortId(session.id)}), an MCP client you run.`];
  }
  const answersAtOnce = context.cardsAnswerAtOnce === true;
  // A task's card too: the replica that takes the task over raises it again and finds the same card and its decision.
  const keyed = external || answersAtOnce || context.effects !== undefined;
  if (keyed && context.call !== undefined) request.callKey = callKeyOf(caller.sessionId, context.call, card.title);
  const raised = await raisedCard(questions, request);
  let decided: Card | undefined = cardStatusName(raised.status) === 'pending' ? undefined : raised;
  if (decided === undefined && !answersAtOnce) {
    context.onCardWait?.(raised.id);
    // No deadline: the wait is bounded by waitSeconds on the relay clock, and the caller's going away ends it.
    decided = await reattachedWait({
      open: (left, signal) => questions.awaitCard({ cardId: raised.id, waitSeconds: left }, { signal }),
      answerOf: (event) => event.card,
      progress: (seconds) => context.progress(waitingLine(external, raised.id, card.title, seconds)),
      waitSeconds: settings.maxWaitSeconds,
      // An external caller's client drops a call held too long: it answers by then, the card staying (the handle).
      ...(external && context.answerBy !== undefined ? { answerBy: context.answerBy } : {}),
      signal: context.signal,
      ...(context.clock === undefined ? {} : { clock: context.clock }),
    });
    context.onCardWait?.(undefined);
  }
  const status = decided === undefined ? 'pending' : cardStatusName(decided.status);
  if (status === 'allowed') return;
  if (status === 'denied') throw toolError('REMOTE_RELAY_PERMISSION', `The user denied ${card.asked}. ${card.nothing}`);
  if ((external || answersAtOnce) && status === 'pending') {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `The user has not decided card ${raised.id} ("${card.title}") in the Inbox yet. ${card.nothing} The card stays in the Inbox: make the same call again to pick up the user's decision.`,
      { card: raised.id, cardStatus: 'pending' },
    );
  }
  throw toolError(
    'REMOTE_RELAY_PERMISSION',
    `The user did not allow ${card.asked} within ${settings.maxWaitSeconds} s (card ${raised.id}). ${card.nothing} Ask the user, then try again.`,
  );
}

/** The sentence of a progress notification while the card waits. */
function waitingLine(external: boolean, cardId: string, title: string, seconds: number): string {
  if (external) return `waiting for your Allow on card ${cardId} in the Inbox: ${title} (${seconds} s; relay inbox lists it)`;
  return `waiting for the user to decide: ${title} (${seconds} s)`;
}
