/**
 * A card raised through the question service once, whatever the transport does: the raise carries a raise id of its
 * own, so a raise the transport failed (a recycled connection, a restarting question service) is made again and the
 * question service answers the card it raised, never a second one.
 */
import { randomUUID } from 'node:crypto';
import type { Card, RaiseCardRequest } from '@relay/proto/relay/question/v1/question_service';
import { retriedOnTransportFailure } from '@relay/rpc';
import { answered } from '../../domain/answers.ts';
import type { QuestionClient } from '../ports.ts';

/** The card RaiseCard answered for `request` (raised now, or, keyed by a call, that call's earlier card). */
export async function raisedCard(questions: Pick<QuestionClient, 'raiseCard'>, request: Omit<RaiseCardRequest, 'raiseId'>): Promise<Card> {
  const once: RaiseCardRequest = { ...request, raiseId: randomUUID() };
  return answered((await retriedOnTransportFailure(() => questions.raiseCard(once))).card, 'RaiseCard', 'card');
}
