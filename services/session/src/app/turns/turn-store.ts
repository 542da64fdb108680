/**
 * What the turn runtime needs from storage. Every write is one transaction with the events it
 * publishes (outbox rows), and every write to a running turn is guarded by the runner's id, so a
 * runner that lost its lease cannot touch the turn again.
 */
import type { RelayMode } from '../../domain/sessions/session.ts';
import type { PendingQuestion, Turn } from '../../domain/turns/turn.ts';
import type { ApiToken } from '../../domain/users/user.ts';
import type { TurnEnding } from '../../domain/turns/turn-rules.ts';

/** The session a claimed turn runs in, as a provider needs it. */
export interface RunnableSession {
  id: string;
  userId: string;
  title: string;
  provider: string;
  model: string;
  effort: string;
  mode: RelayMode;
  cwd: string;
  /** The Claude-only settings (update_session); absent where a store does not read them. */
  autoCompactWindow?: string;
  thinkingEnabled?: boolean;
  thinkingDisplay?: string;
}

/** A turn this runner now holds, with its session and the message that started it. */
export interface ClaimedTurn {
  turnId: string;
  messageId: string;
  text: string;
  /** The mode this turn runs in. */
  mode: RelayMode;
  startedAt: Date;
  session: RunnableSession;
  /** The traceparent of what queued the turn (null before it was stored, or outside any trace). */
  traceParent?: string | null;
}

/** A sub-agent's end as the provider reports it. */
export interface SubagentFinished {
  description: string;
  status: 'completed' | 'failed' | 'stopped';
  summary: string;
}

/** What one claim did: started a turn, or ended one at once (see planClaim). */
export type ClaimResult = { kind: 'run'; claimed: ClaimedTurn } | { kind: 'ended'; turnId: string };

export interface TurnStore {
  /**
   * Takes the oldest queued turn of a session that has no running or waiting turn (skipping rows
   * other runners hold, and turns of the `held` providers, which a usage limit pauses: they stay
   * queued) and applies planClaim to it; undefined when there is none.
   */
  claimNext(options: { runnerId: string; now: Date; canRun: (provider: string) => boolean; leaseMs: number; held?: readonly string[] }): Promise<ClaimResult | undefined>;
  /** Extends the lease; false when the turn is no longer this runner's (it ended or was taken away). */
  renewLease(turnId: string, runnerId: string, leaseUntil: Date): Promise<boolean>;
  /**
   * Ends, as error RELAY_STOPPED_ERROR, every running or waiting turn whose lease ran out before
   * `now`, except `alive` (the caller's own running turns); returns their ids.
   */
  endExpiredLeases(now: Date, alive: ReadonlySet<string>): Promise<string[]>;
  /** The turns of this runner someone asked to stop. */
  stopRequested(runnerId: string): Promise<string[]>;
  /** The reply being written so far. */
  setInFlight(turnId: string, runnerId: string, text: string): Promise<void>;
  /** The turn waits on `question` (waiting_for_answer), with a question_asked event. */
  raiseQuestion(turnId: string, runnerId: string, question: PendingQuestion, now: Date): Promise<void>;
  /** A sub-agent the provider ran inside the turn finished: a subagent_finished event, while the turn is this runner's. */
  recordSubagentFinished(turnId: string, runnerId: string, subagent: SubagentFinished, now: Date): Promise<void>;
  /** The turn showed activity at `now` (reply text, a tool call): a turn_activity event, while the turn is this runner's. */
  recordTurnActivity(turnId: string, runnerId: string, now: Date): Promise<void>;
  /** The question is settled; the turn runs again when none is left. */
  settleQuestion(turnId: string, runnerId: string, questionId: string): Promise<void>;
  /**
   * Ends the turn with a turn_ended event (and the reply as an assistant message when done) and
   * sets its session idle when nothing else is queued; false when it was not this runner's any more.
   */
  endTurn(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<boolean>;
  findTurn(turnId: string): Promise<Turn | undefined>;
  findTurnByMessage(messageId: string): Promise<Turn | undefined>;
  /** Marks the session's running (or else next queued) turn to stop; false when none is running or queued. */
  requestStop(sessionId: string): Promise<boolean>;
  /** Stores a session worker's token and marks the session's worker started. */
  startWorker(token: ApiToken): Promise<void>;
  /** Revokes the worker's token and marks the session's worker stopped. */
  stopWorker(sessionId: string, tokenHash: string): Promise<void>;
}
