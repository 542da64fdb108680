/**
 * The use cases of asks: ask, list, withdraw, answer (by the user) and end (the session was archived).
 */
import { capped } from '../domain/capped.ts';
import type { Ask } from '../domain/ask-entities.ts';
import { admitAsk, applyAnswer, applyWithdraw, askNotFound, AskLimits, buildAsk, isRecent, type AnswerAskInput, type AskInput } from '../domain/asks.ts';
import { invalidInput } from '../domain/errors.ts';
import type { AskReads, AskStore, IdGenerator } from './ports.ts';

export interface AskDeps {
  asks: AskStore;
  ids: IdGenerator;
}

/** Stores a new pending ask within the limits; a dry run checks the same and stores nothing. */
export async function ask(deps: AskDeps, input: AskInput & { dryRun: boolean }, now: Date): Promise<Ask> {
  const built = buildAsk(input, deps.ids.newAskId(), now);
  if (input.dryRun) {
    admitAsk(built, await deps.asks.pendingCounts(built.askingSessionId, built.aboutSessionId));
    return built;
  }
  await deps.asks.create(built, (pending) => admitAsk(built, pending));
  return built;
}

export interface ListAsksInput {
  userId: string;
  askingSessionId: string;
  aboutSessionId: string;
  pendingOnly: boolean;
}

/**
 * A user's asks, newest first: a conversation's or those about a session (pending and ended in the last day), or all
 * pending (the Inbox); at most AskLimits.LIST of them, `more` when more match (one more is read to tell).
 */
export async function listAsks(reads: AskReads, input: ListAsksInput, now: Date): Promise<{ asks: Ask[]; more: boolean }> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const asks = await reads.list(input.userId, {
    ...(input.askingSessionId === '' ? {} : { askingSessionId: input.askingSessionId }),
    ...(input.aboutSessionId === '' ? {} : { aboutSessionId: input.aboutSessionId }),
    pendingOnly: input.pendingOnly || (input.askingSessionId === '' && input.aboutSessionId === ''),
    endedSince: new Date(now.getTime() - AskLimits.RECENT_MS),
    limit: AskLimits.LIST + 1,
  });
  const { listed, more } = capped(asks, AskLimits.LIST);
  return { asks: listed.filter((one) => isRecent(one, now)), more };
}

/** The asking conversation takes back a pending ask. */
export async function withdrawAsk(store: AskStore, input: { userId: string; askingSessionId: string; askId: string }, now: Date): Promise<Ask> {
  const found = await store.find(input.askId);
  if (found === undefined) throw askNotFound(input.askId);
  const withdrawn = applyWithdraw(found, input.userId, input.askingSessionId, now);
  if (await store.saveEnd(withdrawn, undefined)) return withdrawn;
  throw raced(store, input.askId);
}

/** The user answers or dismisses an ask; the question_answered event goes with it. */
export async function answerAsk(deps: AskDeps, input: AnswerAskInput, now: Date): Promise<Ask> {
  if (input.userId === '') throw invalidInput('user_id is required', { field: 'user_id' });
  const found = await deps.asks.find(input.askId);
  if (found === undefined) throw askNotFound(input.askId);
  const answered = applyAnswer(found, input, now);
  if (await deps.asks.saveEnd(answered, { eventId: deps.ids.newEventId(), occurredAt: now, ask: answered })) return answered;
  throw raced(deps.asks, input.askId);
}

/** Ends (nobody told) the pending asks a session asked or that are about it: it was archived or deleted. */
export async function endAsksOf(store: AskStore, sessionId: string, now: Date): Promise<number> {
  return store.endPending(sessionId, now);
}

// Someone ended the ask between our read and our write; report how it stands now.
async function raced(store: AskStore, askId: string): Promise<never> {
  const current = await store.find(askId);
  throw invalidInput(`ask ${askId} is already ${current?.status ?? 'gone'}`, { field: 'question_id', status: current?.status ?? '' });
}

/** The answer to an ask kept on a paired relay (spec, ask): the pairing service polled it there. */
export interface RemoteAnswerInput {
  userId: string;
  askingSessionId: string;
  /** The ask's id on that relay: the question_id the agent got. */
  askId: string;
  answer: string;
  choice: string;
  dismissed: boolean;
  /** The relay it was answered on. */
  via: string;
}

/**
 * Tells the asking conversation here that its ask on a paired relay was answered: question_answered, as for an ask
 * kept here, once per (via, ask id) however often the pairing service reports it.
 */
export async function publishRemoteAnswer(deps: Pick<AskDeps, 'asks'>, input: RemoteAnswerInput, now: Date): Promise<boolean> {
  for (const [field, value] of [
    ['user_id', input.userId],
    ['asking_session_id', input.askingSessionId],
    ['ask_id', input.askId],
    ['via', input.via],
  ] as const) {
    if (value === '') throw invalidInput(`${field} is required`, { field });
  }
  const ask: Ask = {
    id: input.askId,
    userId: input.userId,
    askingSessionId: input.askingSessionId,
    // About a session of the other relay: nobody here is told but the asking conversation.
    aboutSessionId: input.askingSessionId,
    question: '',
    options: [],
    recommendation: '',
    detail: '',
    status: input.dismissed ? 'dismissed' : 'answered',
    answer: input.dismissed ? '' : input.answer,
    choice: input.dismissed ? '' : input.choice,
    via: input.via,
    createdAt: now,
    endedAt: now,
  };
  return deps.asks.publishRemoteAnswer({ eventId: `remote-answer:${input.via}:${input.askId}`, occurredAt: now, ask });
}
