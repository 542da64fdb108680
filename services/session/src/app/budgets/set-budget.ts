import { afterSetting, limitsAnything, settle, type BudgetLimits, type BudgetSetBy } from '../../domain/budgets/budget.ts';
import { invalidInput, noSuchSession } from '../../domain/errors.ts';
import { checkBudgets, type BudgetDeps } from './check-budgets.ts';
import { getTreeUsage, type TreeUsageReport } from './get-tree-usage.ts';

/** The whole numbers a budget counts (tokens, minutes, sessions) and the money, each at most this. */
const MAX_LIMIT = 1_000_000_000;

/** Checks what was asked: each limit a number from 0 (money) or a whole number from 0, and at least one of them. */
export function checkedLimits(limits: BudgetLimits): BudgetLimits {
  const fields: [keyof BudgetLimits, string, boolean][] = [
    ['costUsd', 'cost_usd', false],
    ['tokens', 'tokens', true],
    ['minutes', 'minutes', true],
    ['sessions', 'sessions', true],
  ];
  for (const [key, field, whole] of fields) {
    const value = limits[key];
    if (value === null) continue;
    if (!Number.isFinite(value) || value < 0 || value > MAX_LIMIT || (whole && !Number.isInteger(value))) {
      throw invalidInput(`${field} must be ${whole ? 'a whole number' : 'a number of US dollars'} from 0 to ${MAX_LIMIT}.`, { field, min: 0, max: MAX_LIMIT });
    }
  }
  if (!limitsAnything(limits)) throw invalidInput('A budget limits at least one of cost_usd, tokens, minutes and sessions.', { field: 'budget' });
  return limits;
}

/**
 * Sets the budget of the conversation `sessionId` (the person's, or an agent's or a paired relay's narrowing for a
 * session it starts: settle), then checks it at once: a budget set below what the tree used holds it at once.
 */
export async function setBudget(
  deps: BudgetDeps,
  input: { userId: string; sessionId: string; limits: BudgetLimits; setBy: BudgetSetBy },
  now: Date,
): Promise<TreeUsageReport> {
  const limits = checkedLimits(input.limits);
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId, 'No budget was set.');
  const existing = await deps.budgets.find(session.id);
  const budget = afterSetting(existing, settle(existing?.limits, limits, input.setBy), input.setBy, now, { sessionId: session.id, userId: session.userId });
  await deps.budgets.save(budget, now);
  await checkBudgets(deps, session.id, now);
  // A person's setting may have reopened a reached or ended budget: its tree's queued turns may start now.
  if (input.setBy === 'person') deps.turnsMayRun();
  return getTreeUsage(deps, { userId: input.userId, sessionId: session.id }, now);
}

/** Removes the person's budget from the conversation: its tree runs again unless another budget holds it. */
export async function removeBudget(deps: BudgetDeps, input: { userId: string; sessionId: string }, now: Date): Promise<TreeUsageReport> {
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId, 'No budget was removed.');
  await deps.budgets.remove(session.id);
  deps.turnsMayRun();
  return getTreeUsage(deps, input, now);
}
