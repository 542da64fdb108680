import type { Budget } from '../../domain/budgets/budget.ts';
import type { RemoteTreeReport, RemoteTreeSession, TreeUsageRow } from '../../domain/budgets/tree-usage.ts';

/** Where budgets are kept, and the reads of a delegation tree they are measured on (the usage ledger, the sessions). */
export interface BudgetStore {
  /** The budget set on the conversation `sessionId`, if any. */
  find(sessionId: string): Promise<Budget | undefined>;
  /** Writes the budget (a new one, or over the one on its conversation). */
  save(budget: Budget, now: Date): Promise<void>;
  /**
   * Writes `next` over `current` only if the stored budget is still `current` (its state, warned and card): whether it
   * did. Replicas checking at once take a transition once.
   */
  transition(current: Budget, next: Budget, now: Date): Promise<boolean>;
  /** Removes the conversation's budget; whether there was one. */
  remove(sessionId: string): Promise<boolean>;
  /** The budgets that govern the session's turns: its own and each of its ancestors', nearest first. */
  governing(sessionId: string): Promise<Budget[]>;
  /** The budget whose pending card is `cardId`. */
  byCard(cardId: string): Promise<Budget | undefined>;
  /** The active budgets whose minutes have run out at `now`. */
  minutesRunOut(now: Date): Promise<Budget[]>;
  /**
   * Per session of the tree under `sessionId` (itself included) and provider, the ledger's sums; then the rows the
   * paired relays last reported for the sessions the tree started there.
   */
  treeUsage(sessionId: string): Promise<TreeUsageRow[]>;
  /**
   * The sessions the tree under `sessionId` started: on this relay, on paired relays (as its agents noted them), and
   * the ones those started there (as the paired relays reported).
   */
  sessionsStarted(sessionId: string): Promise<number>;
  /** The sessions the conversations of the tree under `sessionId` started on paired relays (NoteRemoteSessionStarted). */
  remoteSessions(sessionId: string): Promise<RemoteTreeSession[]>;
  /**
   * Keeps a paired relay's report in place of its earlier one, when the conversation started that session there
   * (noted by NoteRemoteSessionStarted) and the report is not older than the kept one (a tree's spend only grows: a
   * report that reads less in any meter was read before it); whether it did.
   */
  noteRemoteReport(report: RemoteTreeReport, now: Date): Promise<boolean>;
  /**
   * The paired relay whose agent started the session here (its first prompt came from that relay, as the pairing
   * named the caller); undefined for a session started on this relay.
   */
  startingRelay(sessionId: string): Promise<string | undefined>;
  /** Asks every running or waiting turn of the tree under `sessionId` to stop; how many were asked. */
  stopRunningTurns(sessionId: string): Promise<number>;
}

/** The owner's card about a budget (only the person decides it, through the user API). */
export interface BudgetCards {
  /** Shows the approval card in the budget's conversation and the owner's Inbox (and notifies them); its id. */
  raise(input: { userId: string; sessionId: string; key: string; title: string; lines: string[] }): Promise<string>;
}
