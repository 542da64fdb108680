import type { BudgetLimits as BudgetLimitsMessage, TreeUsage } from '@relay/proto/relay/session/v1/session_service';
import { CARD_BEING_RAISED, type BudgetLimits } from '../../../domain/budgets/budget.ts';
import type { TreeUsageReport } from '../../../app/budgets/get-tree-usage.ts';

/** Limits from the wire: an unset field is not limited. */
export function fromBudgetLimitsMessage(limits: BudgetLimitsMessage): BudgetLimits {
  return { costUsd: limits.costUsd ?? null, tokens: limits.tokens ?? null, minutes: limits.minutes ?? null, sessions: limits.sessions ?? null };
}

/** Limits on the wire: a meter not limited is unset. */
export function toBudgetLimitsMessage(limits: BudgetLimits): BudgetLimitsMessage {
  const field = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
  return { costUsd: field(limits.costUsd), tokens: field(limits.tokens), minutes: field(limits.minutes), sessions: field(limits.sessions) };
}

/** A tree's usage report as relay.session.v1.TreeUsage. */
export function toTreeUsageMessage(report: TreeUsageReport): TreeUsage {
  return {
    sessionId: report.sessionId,
    rows: report.rows.map((row) => ({
      sessionId: row.sessionId,
      provider: row.provider,
      relay: row.relay,
      turns: row.turns,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      costUsd: row.costUsd,
    })),
    totals: { sessionId: '', provider: '', relay: '', ...report.totals },
    sessionsStarted: report.sessionsStarted,
    budgets: report.budgets.map(({ budget, meters, level, remaining }) => ({
      sessionId: budget.sessionId,
      setBy: budget.setBy,
      limits: toBudgetLimitsMessage(budget.limits),
      startedAt: budget.startedAt,
      state: budget.state,
      level,
      meters,
      remaining: toBudgetLimitsMessage(remaining),
      cardId: budget.cardId === null || budget.cardId === CARD_BEING_RAISED ? '' : budget.cardId,
    })),
    remoteSessions: report.remoteSessions,
  };
}
