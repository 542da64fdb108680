import { budgetLevel, budgetMeters, remaining, type Budget, type BudgetLevel, type BudgetLimits, type BudgetMeter } from '../../domain/budgets/budget.ts';
import { spendOf, totalsOf, type RemoteTreeSession, type TreeUsageRow, type TreeUsageTotals } from '../../domain/budgets/tree-usage.ts';
import { noSuchSession } from '../../domain/errors.ts';
import type { BudgetDeps } from './check-budgets.ts';

/** A budget that governs the tree, measured at `now`. */
export interface BudgetReport {
  budget: Budget;
  meters: BudgetMeter[];
  level: BudgetLevel;
  remaining: BudgetLimits;
}

/** What the tree under a session spent (split by session, provider and relay) and the budgets that govern it. */
export interface TreeUsageReport {
  sessionId: string;
  rows: TreeUsageRow[];
  totals: TreeUsageTotals;
  sessionsStarted: number;
  /** The session's own budget and its ancestors', nearest first. */
  budgets: BudgetReport[];
  /** The sessions the tree started on paired relays, whose spend there counts from those relays' reports. */
  remoteSessions: RemoteTreeSession[];
}

/**
 * The tree usage of the user's session `sessionId`, at `now`. A paired relay's read (`startedByRelay`, the relay as
 * paired here) reaches only a session its agents started here: any other is no session of its. `budgetsOnly` measures
 * only the budgets over it (the rest left empty), which costs one read of its ancestors when none governs it.
 */
export async function getTreeUsage(
  deps: BudgetDeps,
  input: { userId: string; sessionId: string; startedByRelay?: string; budgetsOnly?: boolean },
  now: Date,
): Promise<TreeUsageReport> {
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId);
  if (input.startedByRelay && (await deps.budgets.startingRelay(session.id)) !== input.startedByRelay) throw noSuchSession(deps.relay.name, input.sessionId);
  if (input.budgetsOnly === true) {
    const budgets = await Promise.all((await deps.budgets.governing(session.id)).map((budget) => measure(deps, budget, now)));
    return { sessionId: session.id, rows: [], totals: totalsOf([]), sessionsStarted: 0, budgets, remoteSessions: [] };
  }
  const [rows, sessionsStarted, governing, remoteSessions] = await Promise.all([
    deps.budgets.treeUsage(session.id),
    deps.budgets.sessionsStarted(session.id),
    deps.budgets.governing(session.id),
    deps.budgets.remoteSessions(session.id),
  ]);
  const budgets = await Promise.all(governing.map((budget) => measure(deps, budget, now)));
  return { sessionId: session.id, rows, totals: totalsOf(rows), sessionsStarted, budgets, remoteSessions };
}

/**
 * The sessions the tree of the outermost budget over the user's session `sessionId` started on paired relays (their
 * spend there counts in it once they report it); none when no budget governs the session, which costs one read of its
 * ancestors' budgets.
 */
export async function getBudgetedRemoteSessions(deps: BudgetDeps, input: { userId: string; sessionId: string }): Promise<RemoteTreeSession[]> {
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId);
  const outermost = (await deps.budgets.governing(session.id)).at(-1);
  return outermost === undefined ? [] : deps.budgets.remoteSessions(outermost.sessionId);
}

/** A budget against its own tree's spend, at `now`. */
export async function measure(deps: Pick<BudgetDeps, 'budgets'>, budget: Budget, now: Date): Promise<BudgetReport & { spend: ReturnType<typeof spendOf> }> {
  const [rows, sessionsStarted] = await Promise.all([deps.budgets.treeUsage(budget.sessionId), deps.budgets.sessionsStarted(budget.sessionId)]);
  const spend = spendOf(rows, sessionsStarted);
  const meters = budgetMeters(budget, spend, now);
  return { budget, meters, level: budgetLevel(meters), remaining: remaining(budget, spend, now), spend };
}
