/**
 * What the turn runtime needs from storage. The use cases of this folder (claim-next-turn.ts, end-turn.ts,
 * turn-questions.ts, turn-progress.ts) run their statements through a `TurnTransaction`, each use case in one
 * transaction with the events it publishes (outbox rows); every write to a running turn is guarded by the runner's
 * id, so a runner that lost its lease cannot touch the turn again. Locks are taken session row first, then turn
 * rows, so that two transactions cannot deadlock.
 */
import type { IdGenerator } from '../ports.ts';
import type { Message } from '../../domain/sessions/conversation.ts';
import type { RelayMode } from '../../domain/sessions/session.ts';
import type { TurnEnding } from '../../domain/turns/turn-rules.ts';
import type { EndedTurnStatus, PendingQuestion, Turn } from '../../domain/turns/turn.ts';
import type { ApiToken } from '../../domain/users/user.ts';
import type { ResumePoint } from './provider.ts';

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
  /** A Claude Cloud session's repository (owner/name) and branch, in place of cwd; absent or '' otherwise. */
  repo?: string;
  branch?: string;
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
  /** Where its provider picks it up: set when the turn was handed over from another replica. */
  resume?: ResumePoint;
}

/** A sub-agent's end as the provider reports it. */
export interface SubagentFinished {
  description: string;
  status: 'completed' | 'failed' | 'stopped';
  summary: string;
}

/** The queued turn a claim holds (its row and its session's locked), with its session and its message's text. */
export interface QueuedTurn {
  turnId: string;
  messageId: string;
  text: string;
  mode: RelayMode;
  stopRequested: boolean;
  senderSessionId: string | null;
  traceParent: string | null;
  sessionArchived: boolean;
  session: RunnableSession;
}

/** A turn a transaction just ended, as what follows its end needs it. */
export interface EndedTurn {
  turnId: string;
  sessionId: string;
  messageId: string;
  senderSessionId: string | null;
}

/** A running turn of this runner: its session, its user and its pending questions. */
export interface RunningTurnRow {
  sessionId: string;
  userId: string;
  pendingQuestions: PendingQuestion[];
}

/** What every event of a session's turn carries. */
type SessionFact = { eventId: string; occurredAt: Date; sessionId: string; userId: string };

/** A fact about a turn to publish through the outbox, in the transaction of the change it reports. */
export type TurnEvent =
  | ({ type: 'turn_started'; turnId: string; messageId: string } & SessionFact)
  | ({
      type: 'turn_ended';
      turnId: string;
      messageId: string;
      status: EndedTurnStatus;
      /** The start of the reply, or the error (turnEndedText). */
      text: string;
      senderSessionId: string | null;
    } & SessionFact)
  | ({ type: 'question_asked'; question: PendingQuestion } & SessionFact)
  | ({ type: 'subagent_finished'; turnId: string } & SubagentFinished & SessionFact)
  | ({ type: 'turn_activity'; turnId: string; lastActivityAt: Date } & SessionFact);

/** The turn runtime's statements inside `TurnStore.transaction`: every write of a use case commits together. */
export interface TurnTransaction {
  /**
   * Locks and returns the oldest queued turn of a session that has no running or waiting turn, skipping rows other
   * transactions hold (SKIP LOCKED) and the turns of the `held` providers (a usage limit pauses them: they stay
   * queued); undefined when there is none.
   */
  claimCandidate(held: readonly string[]): Promise<QueuedTurn | undefined>;
  /** The claimed turn runs for `runnerId` under a lease. */
  markRunning(turnId: string, runnerId: string, startedAt: Date, leaseUntil: Date): Promise<void>;
  /** The claimed turn ends at once, with `ending`, stamped started and ended at `now`. */
  markClaimedEnded(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<void>;
  /** The session of a turn (read without a lock), or undefined when the turn does not exist. */
  sessionOfTurn(turnId: string): Promise<string | undefined>;
  /** Locks the session row (always before any turn row) and returns its user, or undefined when it is gone. */
  lockSession(sessionId: string): Promise<string | undefined>;
  /** Ends the turn with `ending` while it runs for `runnerId`; undefined when it does not (any more). */
  endRunningTurn(turnId: string, runnerId: string, ending: TurnEnding, now: Date): Promise<EndedTurn | undefined>;
  /**
   * Ends the turn with `ending` while it runs or waits, its lease ran out before `now` and it has no resume point (one
   * that has waits for a replica to take it over); undefined otherwise.
   */
  endExpiredTurn(turnId: string, ending: TurnEnding, now: Date): Promise<EndedTurn | undefined>;
  /**
   * Takes over the turn for `runnerId` under a new lease while it runs or waits, its lease ran out before `now` and it
   * has a resume point: the turn as claimed, with its original start and its resume point; undefined otherwise.
   */
  takeOverTurn(turnId: string, runnerId: string, now: Date, leaseUntil: Date): Promise<ClaimedTurn | undefined>;
  /** Turns of the session that are queued, running or waiting. */
  countUnfinishedTurns(sessionId: string): Promise<number>;
  /** Sets the session's state and last activity, and adds `newMessages` to its message count. */
  updateSession(sessionId: string, change: { state: 'running_turn' | 'idle'; lastActivityAt: Date; newMessages: number }): Promise<void>;
  appendMessage(message: Pick<Message, 'id' | 'sessionId' | 'role' | 'text' | 'model' | 'createdAt'>): Promise<void>;
  /** Locks the turn's row while it runs or waits for `runnerId`; undefined when it does not. */
  lockRunningTurn(turnId: string, runnerId: string): Promise<RunningTurnRow | undefined>;
  /** The running turn's session and user (read without a lock) while it runs or waits for `runnerId`. */
  findRunningTurn(turnId: string, runnerId: string): Promise<Omit<RunningTurnRow, 'pendingQuestions'> | undefined>;
  setQuestions(turnId: string, questions: readonly PendingQuestion[], status: 'running' | 'waiting_for_answer'): Promise<void>;
  recordEvent(event: TurnEvent): Promise<void>;
}

export interface TurnStore {
  /** Runs `work` in one transaction: all its writes commit or none. */
  transaction<T>(work: (tx: TurnTransaction) => Promise<T>): Promise<T>;
  /** Up to `limit` running or waiting turns whose lease ran out before `now`, the longest expired first (read without a lock). */
  expiredLeases(now: Date, limit: number): Promise<{ turnId: string; sessionId: string }[]>;
  /** Extends the lease; false when the turn is no longer this runner's (it ended or was taken away). */
  renewLease(turnId: string, runnerId: string, leaseUntil: Date): Promise<boolean>;
  /** The turns of this runner someone asked to stop. */
  stopRequested(runnerId: string): Promise<string[]>;
  /** The reply being written so far. */
  setInFlight(turnId: string, runnerId: string, text: string): Promise<void>;
  /** Keeps where the turn's provider can pick it up; false when the turn is no longer this runner's. */
  saveResumePoint(turnId: string, runnerId: string, point: ResumePoint): Promise<boolean>;
  /**
   * Lets the turn go while it runs or waits for `runnerId`, as it is (status, questions, resume point): its lease ends
   * now, so another replica takes it over; false when it was no longer this runner's.
   */
  releaseTurn(turnId: string, runnerId: string): Promise<boolean>;
  findTurn(turnId: string): Promise<Turn | undefined>;
  findTurnByMessage(messageId: string): Promise<Turn | undefined>;
  /** Marks the session's running (or else next queued) turn to stop; false when none is running or queued. */
  requestStop(sessionId: string): Promise<boolean>;
  /** Stores a session worker's token and marks the session's worker started. */
  startWorker(token: ApiToken): Promise<void>;
  /** Revokes the worker's token and marks the session's worker stopped. */
  stopWorker(sessionId: string, tokenHash: string): Promise<void>;
}

/** What the turn use cases need: the store, and ids for the events and reply messages they write. */
export interface TurnDeps {
  store: Pick<TurnStore, 'transaction' | 'expiredLeases'>;
  ids: IdGenerator;
}
