/**
 * What a delegation tree spent, split by session, provider and relay, summed from the per-turn ledger rows (the same
 * rows the relay's usage meters read), so the tree's totals equal the ledger's sum exactly. Pure.
 */
import type { TreeSpend } from './budget.ts';

/** One session's turns of one provider: the ledger's sums. */
export interface TreeUsageRow {
  sessionId: string;
  provider: string;
  /** The relay the session runs on: this relay's name, or a paired relay's. */
  relay: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** The most one turn of these used. */
  largestTurnCostUsd: number;
  largestTurnTokens: number;
}

/**
 * What a session a conversation started on a paired relay has spent there (its own tree there), as that relay last
 * reported it: rows named by the relay as it is paired here.
 */
export interface RemoteTreeReport {
  /** The conversation whose agent started it. */
  sessionId: string;
  relay: string;
  remoteSessionId: string;
  rows: Omit<TreeUsageRow, 'relay' | 'largestTurnCostUsd' | 'largestTurnTokens'>[];
  sessionsStarted: number;
}

/** A session a conversation of the tree started on a paired relay. */
export interface RemoteTreeSession {
  /** The conversation here that started it. */
  startedBySessionId: string;
  relay: string;
  sessionId: string;
}

export interface TreeUsageTotals {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/** The sums of rows. */
export function totalsOf(rows: readonly TreeUsageRow[]): TreeUsageTotals {
  return rows.reduce<TreeUsageTotals>(
    (sum, row) => ({
      turns: sum.turns + row.turns,
      inputTokens: sum.inputTokens + row.inputTokens,
      outputTokens: sum.outputTokens + row.outputTokens,
      costUsd: round(sum.costUsd + row.costUsd),
    }),
    { turns: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
  );
}

/** What a budget measures of the tree: its money and tokens, the sessions it started, and one turn's worth. */
export function spendOf(rows: readonly TreeUsageRow[], sessionsStarted: number): TreeSpend {
  const totals = totalsOf(rows);
  return {
    costUsd: totals.costUsd,
    tokens: totals.inputTokens + totals.outputTokens,
    sessions: sessionsStarted,
    largestTurnCostUsd: Math.max(0, ...rows.map((row) => row.largestTurnCostUsd)),
    largestTurnTokens: Math.max(0, ...rows.map((row) => row.largestTurnTokens)),
  };
}
