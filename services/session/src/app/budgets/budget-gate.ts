import { mayStartSession, type Budget, type BudgetLimits, type BudgetSetBy } from '../../domain/budgets/budget.ts';
import { budgetReached, invalidInput } from '../../domain/errors.ts';
import { checkBudgets, type BudgetDeps } from './check-budgets.ts';
import { measure } from './get-tree-usage.ts';
import { checkedLimits, setBudget } from './set-budget.ts';

/**
 * Refuses, before anything is queued, a call that would start a turn in a tree a budget holds (reached or ended) —
 * the turn would wait until the person decides — or a session the tree may no longer start. A start refused for the
 * sessions meter reaches that budget: the owner's card raises it or ends it.
 */
export async function refuseOverBudget(deps: BudgetDeps, input: { sessionId: string; startsSession: boolean; nothingDone: string }, now: Date): Promise<void> {
  for (const budget of await deps.budgets.governing(input.sessionId)) {
    if (budget.state !== 'active') throw budgetReached(`The budget of this tree is ${budget.state === 'ended' ? 'ended' : 'reached'}.`, budget.sessionId, input.nothingDone);
    if (!input.startsSession || budget.limits.sessions === null) continue;
    const { spend } = await measure(deps, budget, now);
    if (mayStartSession(budget, spend)) continue;
    await reachBySessions(deps, budget, now);
    throw budgetReached(`This tree started the ${budget.limits.sessions} sessions its budget allows.`, budget.sessionId, input.nothingDone);
  }
}

async function reachBySessions(deps: BudgetDeps, budget: Budget, now: Date): Promise<void> {
  if (await deps.budgets.transition(budget, { ...budget, state: 'reached', cardId: null }, now)) await checkBudgets(deps, budget.sessionId, now);
}

/**
 * The budget an agent (or a paired relay, carrying its own) gives a session it starts or prompts: it only narrows
 * (settle), and an agent narrows only the sessions it started.
 */
export async function narrowBudget(
  deps: BudgetDeps,
  input: { userId: string; sessionId: string; startedBySessionId: string | null; callerSessionId: string; limits: BudgetLimits | undefined; dryRun: boolean },
  now: Date,
): Promise<void> {
  if (input.limits === undefined) return;
  const limits = checkedLimits(input.limits);
  const setBy: BudgetSetBy = input.callerSessionId === '' ? 'relay' : 'agent';
  if (setBy === 'agent' && input.startedBySessionId !== input.callerSessionId) {
    throw invalidInput('budget narrows only a session this conversation started; the person sets the others’ budgets.', { field: 'budget' });
  }
  if (!input.dryRun) await setBudget(deps, { userId: input.userId, sessionId: input.sessionId, limits, setBy }, now);
}
