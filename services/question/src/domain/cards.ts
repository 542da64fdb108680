/**
 * The rules of cards, pure: what makes a valid card, how a decision leaves it, and which cards a turn's end
 * leaves waiting for nobody. The use cases in app/ apply them to the store.
 */
import type { AppError } from '@relay/errors';
import { CardLimits } from './card-limits.ts';
import { CARD_KINDS, DECISIONS, type Card, type CardKind, type CardStatus, type Decision } from './entities.ts';
import { forbidden, invalidInput, notFound, questionLimit, turnGone } from './errors.ts';

export interface RaiseCardInput {
  userId: string;
  sessionId: string;
  /** 'approval' or 'question'; anything else is refused. */
  kind: string;
  title: string;
  lines: string[];
  options: string[];
  /** An external session's call (a fingerprint of its action and arguments); unset or '' for none. */
  callKey?: string;
  /** The raise's own name in the session (a retried raise, a handed-over turn's step); unset or '' for none. */
  raiseId?: string;
}

/** A new pending card from a raise request, or REMOTE_RELAY_INVALID_INPUT naming the first bad field. */
export function buildCard(input: RaiseCardInput, id: string, now: Date): Card {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.sessionId === '') throw invalidInput('session_id is required', { field: 'session_id' });
  if (!isCardKind(input.kind)) throw invalidInput('kind must be approval or question', { field: 'kind' });
  const title = input.title.trim();
  if (title === '') throw invalidInput('title is required', { field: 'title' });
  if (title.length > CardLimits.TITLE_CHARS) throw invalidInput(`title is longer than ${CardLimits.TITLE_CHARS} characters`, { field: 'title' });
  if (input.lines.length > CardLimits.LINES) throw invalidInput(`a card shows at most ${CardLimits.LINES} lines`, { field: 'lines' });
  if (input.lines.some((line) => line.length > CardLimits.LINE_CHARS)) {
    throw invalidInput(`a line is longer than ${CardLimits.LINE_CHARS} characters`, { field: 'lines' });
  }
  const options = input.options.map((option) => option.trim());
  if (input.kind === 'approval' && options.length > 0) {
    throw invalidInput('an approval card takes no options: it is answered allow or deny', { field: 'options' });
  }
  if (options.length > CardLimits.OPTIONS) throw invalidInput(`a card offers at most ${CardLimits.OPTIONS} options`, { field: 'options' });
  if (options.some((option) => option === '' || option.length > CardLimits.OPTION_CHARS)) {
    throw invalidInput(`each option must be 1 to ${CardLimits.OPTION_CHARS} characters`, { field: 'options' });
  }
  if (new Set(options).size !== options.length) throw invalidInput('options must differ from each other', { field: 'options' });
  const callKey = input.callKey ?? '';
  if (callKey.length > CardLimits.CALL_KEY_CHARS) throw invalidInput(`call_key is longer than ${CardLimits.CALL_KEY_CHARS} characters`, { field: 'call_key' });
  if ((input.raiseId ?? '').length > CardLimits.RAISE_ID_CHARS)
    throw invalidInput(`raise_id is longer than ${CardLimits.RAISE_ID_CHARS} characters`, { field: 'raise_id' });
  return {
    id,
    userId: input.userId,
    sessionId: input.sessionId,
    kind: input.kind,
    title,
    lines: [...input.lines],
    options,
    status: 'pending',
    answer: '',
    choices: [],
    createdAt: now,
    decidedAt: undefined,
    callKey,
  };
}

export interface DecideCardInput {
  userId: string;
  cardId: string;
  /** allow | deny (approval cards), answer | dismiss (question cards). */
  decision: string;
  answer: string;
  choices: string[];
  /** The user as a person (the user API), or another session's agent (answer_question) naming its session. */
  by: CardDecider;
  /** Run every check and decide nothing: the answer is the card as it would be decided. */
  dryRun?: boolean;
}

/** Who decides: only the user decides an approval card; an agent answers question cards of other sessions. */
export type CardDecider = { kind: 'user' } | { kind: 'agent'; sessionId: string };

const TAKES: Record<CardKind, readonly Decision[]> = { approval: ['allow', 'deny'], question: ['answer', 'dismiss'] };
const STATUS_AFTER: Record<Decision, CardStatus> = { allow: 'allowed', deny: 'denied', answer: 'answered', dismiss: 'dismissed' };

/**
 * The card as `input` decides it, or the refusal: another user's card is not found (as a card that does not
 * exist: nothing tells them apart); an agent may not decide approval cards or its own session's; a decided card stays decided (a withdrawn one answers
 * REMOTE_RELAY_NO_ACTIVE_TURN: its turn is gone); the decision must fit the card's kind; an answer needs
 * text or choices, and choices come from the card's options when it has any.
 */
export function applyDecision(card: Card, input: DecideCardInput, now: Date): Card {
  if (card.userId !== input.userId) throw notFound(card.id);
  if (input.by.kind === 'agent') {
    if (card.kind === 'approval') throw forbidden("an agent cannot decide an approval card: those are the user's", { card: card.id });
    if (card.sessionId === input.by.sessionId) throw forbidden('an agent cannot answer its own question', { card: card.id });
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

/** Refuses a new card while the session already has CardLimits.PENDING_PER_SESSION waiting for the user. */
export function admitCard(card: Card, pendingInSession: number): void {
  if (pendingInSession >= CardLimits.PENDING_PER_SESSION) {
    throw questionLimit(
      `Session ${card.sessionId} already has ${pendingInSession} cards waiting for the user (at most ${CardLimits.PENDING_PER_SESSION}). Nothing was raised: wait until the user decides one.`,
      { pending: pendingInSession, limit: CardLimits.PENDING_PER_SESSION },
    );
  }
}

/** A card that is no longer pending: a withdrawn one's turn is gone (REMOTE_RELAY_NO_ACTIVE_TURN), a decided one says how. */
export function alreadyDecided(card: Card): AppError {
  if (card.status === 'cancelled') return turnGone(card);
  return invalidInput(`card ${card.id} is already ${card.status}`, { field: 'card_id', status: card.status });
}

function article(kind: CardKind): string {
  return kind === 'approval' ? 'an' : 'a';
}

export interface TurnEnd {
  sessionId: string;
  turnId: string;
  endedAt: Date;
}

/**
 * Whether the turn end leaves `card` waiting for nobody: a pending card of that session raised at or before the
 * end. A session runs one turn at a time, so such a card was raised in that turn or an earlier one, all of them
 * over; a card raised later belongs to a turn still running. A card with a call key is an external session's
 * call, which no hosted turn owns, and stays.
 */
export function isLeftByTurnEnd(card: Card, end: TurnEnd): boolean {
  return card.status === 'pending' && card.sessionId === end.sessionId && card.callKey === '' && card.createdAt.getTime() <= end.endedAt.getTime();
}

function isCardKind(kind: string): kind is CardKind {
  return (CARD_KINDS as readonly string[]).includes(kind);
}
