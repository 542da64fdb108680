/**
 * A paired relay's call that this relay's person must allow (docs/security.md, Paired relays): this relay raises
 * its own approval card, in the session the call is about and its owner's Inbox, and waits a short while for it.
 * Nothing the calling relay sends stands for the Allow. The card is keyed by the calling conversation and the call
 * (as an external session's are, decisions.md, External sessions): a card still pending when the wait ends stays in
 * the Inbox, and the same call made again picks up the person's decision instead of raising a second card.
 */
import { CardKind, type Card } from '@relay/proto/relay/question/v1/question_service';
import type { ActionContext } from './action-context.ts';
import { reattachedWait } from './reattached-wait.ts';
import type { RelayCallOrigin } from './relay-call-origin.ts';
import { callKeyOf, type CallShape } from '../../domain/call-key.ts';
import type { CardText } from '../../domain/card-text.ts';
import { toolError } from '../../domain/errors.ts';
import { raisedCard } from './raised-card.ts';
import { cardStatusName } from '../views/question-view.ts';

/**
 * How long (relay clock) a paired relay's call waits here for the person: within the calling relay's own bound on a
 * forwarded call (30 s), so the refusal naming the pending card reaches its agent.
 */
const WAIT_SECONDS = 20;

/** Returns once this relay's person allowed the call on their card; throws REMOTE_RELAY_PERMISSION otherwise. */
export async function askPersonHere(card: CardText, sessionId: string, call: CallShape, origin: RelayCallOrigin, context: ActionContext): Promise<void> {
  const { provenance } = origin;
  const caller = `relay:${origin.relayName}/${provenance.originSessionId}`;
  const raised = await raisedCard(context.questions, {
    userId: origin.userId,
    sessionId,
    kind: CardKind.CARD_KIND_APPROVAL,
    title: card.title,
    lines: [...card.lines, `Asked by an agent on relay "${origin.relayName}" (session "${provenance.originSessionTitle}"), through your pairing with it.`],
    options: [],
    callKey: callKeyOf(caller, call, card.title),
  });
  let decided: Card | undefined = cardStatusName(raised.status) === 'pending' ? undefined : raised;
  if (decided === undefined) {
    // As every wait for the person: re-attached when the transport ends the call, the card being durable.
    decided = await reattachedWait({
      open: (left, signal) => context.questions.awaitCard({ cardId: raised.id, waitSeconds: left }, { signal }),
      answerOf: (event) => event.card,
      progress: async () => undefined,
      waitSeconds: WAIT_SECONDS,
      signal: context.signal,
      ...(context.clock === undefined ? {} : { clock: context.clock }),
    });
  }
  const status = decided === undefined ? 'pending' : cardStatusName(decided.status);
  if (status === 'allowed') return;
  const here = `relay "${context.relayName}"`;
  if (status === 'pending') {
    throw toolError(
      'REMOTE_RELAY_PERMISSION',
      `The user of ${here} must allow ${card.asked} on card ${raised.id} there, and has not yet. ${card.nothing} The card stays in their Inbox: make the same call again to pick up the decision.`,
      { card: raised.id, cardStatus: 'pending' },
    );
  }
  throw toolError('REMOTE_RELAY_PERMISSION', `The user of ${here} did not allow ${card.asked} (card ${raised.id}). ${card.nothing}`);
}
