/**
 * What a provider is to the turn runtime: something that turns a queued message into a reply,
 * reporting what it does on the way, and that stops when the turn's signal aborts.
 */
import type { Clock } from '@relay/clock';
import type { PendingQuestion } from '../domain/entities.ts';
import type { RunnableSession } from '../domain/turns/turn-store.ts';

/** What a provider reports while a turn runs. */
export type ProviderEvent =
  /** More reply text (read_session's inFlight). */
  | { type: 'text'; delta: string }
  /** The turn now waits on a question in its own session (waiting_for_answer). */
  | { type: 'question_raised'; question: PendingQuestion }
  /** The question was answered, dismissed or withdrawn; the turn runs on. */
  | { type: 'question_answered'; questionId: string }
  /** A tool the agent calls (the session's activity line). */
  | { type: 'tool_call'; name: string; input: unknown };

/** One turn as a provider sees it. */
export interface TurnInput {
  session: RunnableSession;
  /** The message that started the turn. */
  message: { id: string; text: string };
  /** The session worker's bearer token for the gateway's MCP endpoint. */
  token: string;
  /** Aborts when the turn is stopped, overruns Max turn duration, or the relay stops. */
  signal: AbortSignal;
  /** The relay clock: every wait a provider makes is on it. */
  clock: Clock;
  /** Reports progress; awaiting it orders the report before what follows (e.g. a question before its wait). */
  emit(event: ProviderEvent): Promise<void>;
}

/** A finished turn's reply. */
export interface TurnReply {
  text: string;
  model: string;
}

/** Runs a provider's turns. */
export interface Provider {
  readonly id: string;
  /** Runs the turn to its reply; throws TurnFailed for a failure to show, or the signal's reason once aborted. */
  startTurn(input: TurnInput): Promise<TurnReply>;
}

/** A turn that failed for a reason the user and the calling agent should read (its message becomes the turn's error). */
export class TurnFailed extends Error {
  override readonly name = 'TurnFailed';
}
