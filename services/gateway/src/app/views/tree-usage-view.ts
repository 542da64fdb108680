import type { BudgetLimits, TreeUsage } from '@relay/proto/relay/session/v1/session_service';
import { z } from 'zod';

const Limits = z
  .strictObject({ costUsd: z.number().nullable(), tokens: z.number().nullable(), minutes: z.number().nullable(), sessions: z.number().nullable() })
  .meta({ id: 'BudgetLimits', description: 'Per meter its limit (null: not limited): US$, tokens, wall-clock minutes, sessions started.' });

const Spent = { turns: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() };

/** What a delegation tree spent and the budgets over it, as the user API, relay_tool usage and the CLI show it. */
export const TreeUsageView = z
  .strictObject({
    session: z.string(),
    rows: z.array(z.strictObject({ session: z.string(), provider: z.string(), relay: z.string(), ...Spent })),
    totals: z.strictObject(Spent),
    sessionsStarted: z.number(),
    budgets: z.array(
      z.strictObject({
        session: z.string(),
        setBy: z.string(),
        state: z.string(),
        level: z.string(),
        startedAt: z.string(),
        limits: Limits,
        remaining: Limits,
        meters: z.array(z.strictObject({ name: z.string(), used: z.number(), limit: z.number(), utilization: z.number() })),
        cardId: z.string().nullable(),
      }),
    ),
  })
  .meta({
    id: 'TreeUsage',
    description:
      'What the tree under a session spent, split by session, provider and relay (the per-turn ledger’s sums: totals is their sum), and the budgets that govern it, nearest first.',
  });

function limitsView(limits: BudgetLimits | undefined) {
  return { costUsd: limits?.costUsd ?? null, tokens: limits?.tokens ?? null, minutes: limits?.minutes ?? null, sessions: limits?.sessions ?? null };
}

/** A tree's usage as TreeUsageView. */
export function treeUsageView(usage: TreeUsage | undefined): z.infer<typeof TreeUsageView> {
  const spent = (row: { turns: number; inputTokens: number; outputTokens: number; costUsd: number } | undefined) => ({
    turns: row?.turns ?? 0,
    inputTokens: row?.inputTokens ?? 0,
    outputTokens: row?.outputTokens ?? 0,
    costUsd: row?.costUsd ?? 0,
  });
  return {
    session: usage?.sessionId ?? '',
    rows: (usage?.rows ?? []).map((row) => ({ session: row.sessionId, provider: row.provider, relay: row.relay, ...spent(row) })),
    totals: spent(usage?.totals),
    sessionsStarted: usage?.sessionsStarted ?? 0,
    budgets: (usage?.budgets ?? []).map((budget) => ({
      session: budget.sessionId,
      setBy: budget.setBy,
      state: budget.state,
      level: budget.level,
      startedAt: budget.startedAt?.toISOString() ?? '',
      limits: limitsView(budget.limits),
      remaining: limitsView(budget.remaining),
      meters: budget.meters.map((meter) => ({ name: meter.name, used: meter.used, limit: meter.limit, utilization: meter.utilization })),
      cardId: budget.cardId === '' ? null : budget.cardId,
    })),
  };
}

/** The line an agent's result carries while a budget over its tree is at 80 % or more; undefined below. */
export function budgetNote(view: z.infer<typeof TreeUsageView>): string | undefined {
  const tight = view.budgets.find((budget) => budget.level !== 'ok' || budget.state !== 'active');
  if (tight === undefined) return undefined;
  const meters = tight.meters.map((meter) => `${meter.name} ${meter.used} of ${meter.limit}`).join(', ');
  const state = tight.state === 'active' ? (tight.level === 'reached' ? 'reached' : 'at 80 % or more') : tight.state;
  return `The budget over this conversation's tree is ${state} (${meters}); at 100 % no new turn starts in the tree until the user raises it.`;
}
