/**
 * A card raised through the question service once, whatever the transport does: the raise carries a raise id of its
 * own, so a raise the transport failed (a recycled connection, a restarting question service) is made again and the
 * question service answers the card it raised, never a second one.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Card, RaiseCardRequest } from '@relay/proto/relay/question/v1/question_service';
import { isTransportFailure, reattachDelayMs } from '@relay/rpc';
import { answered } from '../../domain/answers.ts';
import type { QuestionClient } from '../ports.ts';

/** Tries of a raise the transport fails (about 18 s of reattachDelayMs between them). */
const RAISE_ATTEMPTS = 8;

/** The card RaiseCard answered for `request` (raised now, or, keyed by a call, that call's earlier card). */
export async function raisedCard(questions: Pick<QuestionClient, 'raiseCard'>, request: Omit<RaiseCardRequest, 'raiseId'>): Promise<Card> {
  const once: RaiseCardRequest = { ...request, raiseId: randomUUID() };
  for (let attempt = 1; ; attempt++) {
    try {
      return answered((await questions.raiseCard(once)).card, 'RaiseCard', 'card');
    } catch (error) {
      if (!isTransportFailure(error) || attempt >= RAISE_ATTEMPTS) throw error;
      await sleep(reattachDelayMs(attempt));
    }
  }
}
