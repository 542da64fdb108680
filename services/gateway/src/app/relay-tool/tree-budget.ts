/**
 * Budgets over delegation trees as relay_tool shows them (docs/adr/0039-tree-budgets.md): the note an agent's result
 * carries while a budget over its tree is at 80 % or more, and what a session started from a paired relay spent, which
 * this relay reports back in the result of the call that prompted it (the calling relay counts it in its tree).
 */
import { z } from 'zod';
import { nothingOf } from '../../domain/action-traits.ts';
import { asBudgetArgument, budgetArgument, narrowestLimits } from '../../domain/budget-argument.ts';
import type { Success } from '../../domain/result.ts';
import type { ToolArguments } from '../../domain/tool-arguments.ts';
import type { ActionContext } from './action-context.ts';
import { budgetNote, treeUsageView } from '../views/tree-usage-view.ts';
import type { SessionClient } from '../ports.ts';

/** `result` with budgetNote when a budget over the caller's tree is at 80 % or more, reached or ended. */
export async function withBudgetNote(result: Success, sessions: SessionClient, caller: { userId: string; sessionId: string }): Promise<Success> {
  if (caller.sessionId === '') return result;
  const { usage } = await sessions.getTreeUsage({ userId: caller.userId, sessionId: caller.sessionId });
  const note = budgetNote(treeUsageView(usage));
  return note === undefined ? result : { ...result, budgetNote: note };
}

/**
 * `result` with treeSpent: what the tree under `sessionId` (a session a paired relay's agent started or prompts here)
 * spent by this relay's ledger, so the calling relay counts it against the budget over its own tree.
 */
export async function withTreeSpent(result: Success, sessions: SessionClient, input: { userId: string; sessionId: string }): Promise<Success> {
  const { usage } = await sessions.getTreeUsage(input);
  const view = treeUsageView(usage);
  return { ...result, treeSpent: { session: input.sessionId, sessionsStarted: view.sessionsStarted, totals: view.totals, rows: view.rows } };
}

const ReportedRow = z.object({
  session: z.string(),
  provider: z.string(),
  turns: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});
const TreeSpent = z.object({ session: z.string(), sessionsStarted: z.number(), rows: z.array(ReportedRow) });

/**
 * Before a prompt goes to a paired relay: refuses it when a budget over the caller's tree holds it (or, for a new
 * session, the tree started all it may), else the budget argument the call carries there — the tightest of the
 * agent's own and what each budget over the tree leaves; undefined when neither is. That relay enforces it there.
 */
export async function carriedBudget(args: ToolArguments, context: ActionContext, startsSession: boolean): Promise<Record<string, number> | undefined> {
  const { caller, sessions } = context;
  const { carried } = await sessions.checkTreeBudget({ userId: caller.userId, sessionId: caller.sessionId, startsSession });
  const limits = narrowestLimits(budgetArgument(args.budget, nothingOf(context.action)), carried);
  return limits === undefined ? undefined : asBudgetArgument(limits);
}

/**
 * Keeps what the paired relay reported a session this conversation started there has spent (treeSpent in its
 * result), so it counts in this conversation's tree; a result without a report, or from another relay's version
 * that sends none, changes nothing.
 */
export async function noteReportedSpend(result: Record<string, unknown>, relay: string, context: ActionContext): Promise<void> {
  const report = TreeSpent.safeParse(result.treeSpent);
  if (result.ok !== true || !report.success) return;
  const { caller, sessions } = context;
  await sessions.noteRemoteTreeSpend({
    userId: caller.userId,
    sessionId: caller.sessionId,
    relay,
    remoteSessionId: report.data.session,
    rows: report.data.rows.map(({ session, ...row }) => ({ ...row, sessionId: session, relay })),
    sessionsStarted: report.data.sessionsStarted,
  });
}
