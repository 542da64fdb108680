/**
 * The rules of asks, pure: what makes a valid ask, the limits on pending asks, answering,
 * dismissing and withdrawing. The use cases in ask-use-cases.ts apply them to the store.
 */
import { appError, AppError, type ErrorDetails } from '@relay/errors';
import type { Ask } from './ask-entities.ts';
import { forbidden, invalidInput } from './errors.ts';

export const AskLimits = {
  /** Pending asks per asking conversation, and per session asked about (REMOTE_RELAY_QUESTION_LIMIT). */
  PENDING: 20,
  QUESTION_CHARS: 2_000,
  DETAIL_CHARS: 10_000,
  OPTIONS: 20,
  OPTION_CHARS: 200,
  ANSWER_CHARS: 10_000,
  /** list_questions keeps answered, dismissed and withdrawn asks this long. */
  RECENT_MS: 24 * 60 * 60 * 1000,
  LIST: 500,
} as const;

export interface AskInput {
  userId: string;
  askingSessionId: string;
  /** Another session it asks on behalf of; '' for the asking conversation itself. */
  aboutSessionId: string;
  question: string;
  options: string[];
  recommendation: string;
  detail: string;
}

/** A new pending ask, or REMOTE_RELAY_INVALID_INPUT naming the first bad field. */
export function buildAsk(input: AskInput, id: string, now: Date): Ask {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  if (input.askingSessionId === '') throw invalidInput('asking_session_id is required', { field: 'asking_session_id' });
  const question = input.question.trim();
  if (question === '') throw invalidInput('ask: question is required', { field: 'question' });
  if (question.length > AskLimits.QUESTION_CHARS)
    throw invalidInput(`ask: question is longer than ${AskLimits.QUESTION_CHARS} characters`, { field: 'question' });
  const options = input.options.map((option) => option.trim());
  if (options.length > AskLimits.OPTIONS) throw invalidInput(`ask: at most ${AskLimits.OPTIONS} options`, { field: 'options' });
  if (options.some((option) => option === '' || option.length > AskLimits.OPTION_CHARS)) {
    throw invalidInput(`ask: each option must be 1 to ${AskLimits.OPTION_CHARS} characters`, { field: 'options' });
  }
  if (new Set(options).size !== options.length) throw invalidInput('ask: options must differ from each other', { field: 'options' });
  const recommendation = input.recommendation.trim();
  if (recommendation.length > AskLimits.OPTION_CHARS)
    throw invalidInput(`ask: recommendation is longer than ${AskLimits.OPTION_CHARS} characters`, { field: 'recommendation' });
  if (input.detail.length > AskLimits.DETAIL_CHARS) throw invalidInput(`ask: detail is longer than ${AskLimits.DETAIL_CHARS} characters`, { field: 'detail' });
  return {
    id,
    userId: input.userId,
    askingSessionId: input.askingSessionId,
    aboutSessionId: input.aboutSessionId === '' ? input.askingSessionId : input.aboutSessionId,
    question,
    options,
    recommendation,
    detail: input.detail.trim(),
    status: 'pending',
    answer: '',
    choice: '',
    via: '',
    createdAt: now,
    endedAt: undefined,
  };
}

/** Pending asks already held: by the asking conversation, and about the session asked about. */
export interface PendingAsks {
  asking: number;
  about: number;
}

/** Refuses a new ask past 20 pending per asking conversation or per session asked about. */
export function admitAsk(ask: Ask, pending: PendingAsks): void {
  if (pending.asking >= AskLimits.PENDING) {
    throw questionLimit(`This conversation already has ${pending.asking} pending asks (at most ${AskLimits.PENDING}). Wait for answers or withdraw one.`, {
      pending: pending.asking,
    });
  }
  if (ask.aboutSessionId !== ask.askingSessionId && pending.about >= AskLimits.PENDING) {
    throw questionLimit(`Session ${ask.aboutSessionId} already has ${pending.about} pending asks about it (at most ${AskLimits.PENDING}).`, {
      pending: pending.about,
    });
  }
}

export interface AnswerAskInput {
  userId: string;
  askId: string;
  /** "answer" or "dismiss". */
  decision: string;
  answer: string;
  choice: string;
  via: string;
}

/** The ask as the user's answer leaves it, or the refusal. Another user's ask is not found. */
export function applyAnswer(ask: Ask, input: AnswerAskInput, now: Date): Ask {
  if (ask.userId !== input.userId) throw askNotFound(ask.id);
  if (ask.status !== 'pending') throw invalidInput(`ask ${ask.id} is already ${ask.status}`, { field: 'ask_id', status: ask.status });
  const answer = input.answer.trim();
  const choice = input.choice.trim();
  if (input.decision === 'dismiss') {
    if (answer !== '' || choice !== '') throw invalidInput('dismiss takes no answer or choice', { field: answer !== '' ? 'answer' : 'choice' });
    return { ...ask, status: 'dismissed', via: input.via, endedAt: now };
  }
  if (input.decision !== 'answer') throw invalidInput('an ask is decided with answer or dismiss', { field: 'decision', decisions: ['answer', 'dismiss'] });
  if (answer === '' && choice === '') throw invalidInput('an answer needs answer or a choice', { field: 'answer' });
  if (answer.length > AskLimits.ANSWER_CHARS) throw invalidInput(`answer is longer than ${AskLimits.ANSWER_CHARS} characters`, { field: 'answer' });
  if (choice !== '' && ask.options.length > 0 && !ask.options.includes(choice)) {
    throw invalidInput(`the choice must be one of the ask's options: ${ask.options.join(', ')}`, { field: 'choice', options: [...ask.options] });
  }
  return { ...ask, status: 'answered', answer, choice, via: input.via, endedAt: now };
}

/** The ask withdrawn by `askingSessionId`; only the conversation that asked may, and only while it is pending. */
export function applyWithdraw(ask: Ask, userId: string, askingSessionId: string, now: Date): Ask {
  if (ask.userId !== userId) throw askNotFound(ask.id);
  if (ask.askingSessionId !== askingSessionId)
    throw forbidden(`ask ${ask.id} was asked by another conversation; only the conversation that asked may withdraw it`, { question_id: ask.id });
  if (ask.status !== 'pending') throw invalidInput(`ask ${ask.id} is already ${ask.status}`, { field: 'question_id', status: ask.status });
  return { ...ask, status: 'withdrawn', endedAt: now };
}

/** True when a listing shows the ask: pending, or ended within the last day. */
export function isRecent(ask: Ask, now: Date): boolean {
  return ask.status === 'pending' || (ask.endedAt !== undefined && now.getTime() - ask.endedAt.getTime() <= AskLimits.RECENT_MS);
}

/** No such ask, or another user's (never told apart). */
export function askNotFound(askId: string): AppError {
  return appError('REMOTE_RELAY_NOT_FOUND', `no ask ${askId}`, { details: { question_id: askId } });
}

function questionLimit(message: string, details: ErrorDetails): AppError {
  return appError('REMOTE_RELAY_QUESTION_LIMIT', message, { details });
}
