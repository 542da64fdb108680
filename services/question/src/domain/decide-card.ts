import type { AppError } from '@relay/errors';
import { CardLimits } from './card-limits.ts';
import { DECISIONS, type Card, type CardKind, type CardStatus, type Decision } from './entities.ts';
import { forbidden, invalidInput, notFound, turnGone } from './errors.ts';
import type { CardDeps, TurnEndsHeard } from './ports.ts';

export interface DecideCardInput {
  userId: string;
  cardId: string;
  /** allow | deny (approval cards), answer | dismiss (question cards). */
  decision: string;
  answer: string;
  choices: string[];
  /** Set when another session's agent answers (answer_question) rather than the user. */
  agentSessionId?: string;
  /** Run every check and decide nothing: the answer is the card as it would be decided. */
  dryRun?: boolean;
}

const TAKES: Record<CardKind, readonly Decision[]> = { approval: ['allow', 'deny'], question: ['answer', 'dismiss'] };
const STATUS_AFTER: Record<Decision, CardStatus> = { allow: 'allowed', deny: 'denied', answer: 'answered', dismiss: 'dismissed' };

/**
 * The card as `input` decides it, or the refusal: another user's card is not found; an agent may not
 * decide approval cards or its own session's; a decided card stays decided (a withdrawn one answers
 * REMOTE_RELAY_NO_ACTIVE_TURN: its turn is gone); the decision must fit the card's kind; an answer needs
 * text or choices, and choices come from the card's options when it has any.
 */
export function applyDecision(card: Card, input: DecideCardInput, now: Date): Card {
  if (card.userId !== input.userId) throw notFound(card.id);
  if (input.agentSessionId !== undefined) {
    if (card.kind === 'approval') throw forbidden("an agent cannot decide an approval card: those are the user's", { card: card.id });
    if (card.sessionId === input.agentSessionId) throw forbidden('an agent cannot answer its own question', { card: card.id });
  }
  if (card.status !== 'pending') throw alreadyDecided(card);
  const decision = input.decision as Decision;
  if (!(DECISIONS as readonly string[]).includes(decision) || !TAKES[card.kind].includes(decision)) {
    throw invalidInput(`${article(card.kind)} ${card.kind} card is decided with ${TAKES[card.kind].join(' or ')}`, {
      field: 'decision',
      decisions: [...TAKES[card.kind]],
    });
  }
  const answer = input.answer.trim();
  const choices = [...new Set(input.choices)];
  if (decision !== 'answer') {
    if (answer !== '' || choices.length > 0) throw invalidInput(`${decision} takes no answer or choices`, { field: answer !== '' ? 'answer' : 'choices' });
    return { ...card, status: STATUS_AFTER[decision], decidedAt: now };
  }
  if (answer === '' && choices.length === 0) throw invalidInput('an answer needs answer or choices', { field: 'answer' });
  if (answer.length > CardLimits.ANSWER_CHARS) throw invalidInput(`answer is longer than ${CardLimits.ANSWER_CHARS} characters`, { field: 'answer' });
  if (choices.some((choice) => choice.trim() === '')) throw invalidInput('a choice is empty', { field: 'choices' });
  if (card.options.length > 0 && choices.some((choice) => !card.options.includes(choice))) {
    throw invalidInput(`choices must be among the card's options: ${card.options.join(', ')}`, { field: 'choices', options: [...card.options] });
  }
  return { ...card, status: 'answered', answer, choices, decidedAt: now };
}

export type DecideCardDeps = CardDeps & { turnEnds: TurnEndsHeard };

/**
 * Decides a card of the user's and writes the decision with its card_decided event (on a dry run, only checks).
 * Nothing is decided before every turn end missed while this service was away is handled (at once, but for a
 * moment after a start): a card whose turn ended then is refused as withdrawn instead of taken.
 */
export async function decideCard(deps: DecideCardDeps, input: DecideCardInput, now: Date): Promise<Card> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.cardId === '') throw invalidInput('card_id is required', { field: 'card_id' });
  await deps.turnEnds.caughtUp();
  const card = await deps.store.find(input.cardId);
  if (card === undefined) throw notFound(input.cardId);
  const decided = applyDecision(card, input, now);
  if (input.dryRun) return decided;
  if (await deps.store.saveDecision(decided, { eventId: deps.ids.newEventId(), occurredAt: now, card: decided })) return decided;
  // Someone decided it between our read and our write; report what they decided.
  const current = await deps.store.find(input.cardId);
  if (current === undefined) throw new Error(`card ${input.cardId} vanished while being decided`);
  throw alreadyDecided(current);
}

// A withdrawn card's turn is gone: REMOTE_RELAY_NO_ACTIVE_TURN; a decided one says how it was decided.
function alreadyDecided(card: Card): AppError {
  if (card.status === 'cancelled') return turnGone(card);
  return invalidInput(`card ${card.id} is already ${card.status}`, { field: 'card_id', status: card.status });
}

function article(kind: CardKind): string {
  return kind === 'approval' ? 'an' : 'a';
}
