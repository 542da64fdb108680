import { mayStartSession, narrowest, type Budget, type BudgetLimits, type BudgetSetBy } from '../../domain/budgets/budget.ts';
import type { RemoteTreeReport } from '../../domain/budgets/tree-usage.ts';
import { budgetReached, invalidInput, noSuchSession } from '../../domain/errors.ts';
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
    if (budget.state !== 'active')
      throw budgetReached(`The budget of this tree is ${budget.state === 'ended' ? 'ended' : 'reached'}.`, budget.sessionId, input.nothingDone);
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
 * (settle). An agent narrows only the sessions its conversation started, and says so when asked for another. A paired
 * relay's (`pairedRelay`, a call with no calling session here) narrows only a session that relay's agents started
 * here: its prompt to any other session — one this relay's person or agents started — leaves that session's budget
 * as it is (the calling relay carries a budget only into its own tree, and does not count that session's spend in it).
 */
export async function narrowBudget(
  deps: BudgetDeps,
  input: {
    userId: string;
    sessionId: string;
    startedBySessionId: string | null;
    callerSessionId: string;
    pairedRelay: string;
    limits: BudgetLimits | undefined;
    dryRun: boolean;
  },
  now: Date,
): Promise<void> {
  if (input.limits === undefined) return;
  const limits = checkedLimits(input.limits);
  const setBy: BudgetSetBy = input.callerSessionId === '' ? 'relay' : 'agent';
  if (setBy === 'agent' && input.startedBySessionId !== input.callerSessionId) {
    throw invalidInput('budget narrows only a session this conversation started; the person sets the others’ budgets.', { field: 'budget' });
  }
  if (input.dryRun) return;
  if (setBy === 'relay' && (input.pairedRelay === '' || (await deps.budgets.startingRelay(input.sessionId)) !== input.pairedRelay)) return;
  await setBudget(deps, { userId: input.userId, sessionId: input.sessionId, limits, setBy }, now);
}

/**
 * Before a conversation's agent prompts a paired relay: refuses as refuseOverBudget does, else answers what the call
 * carries there — the tightest of what each budget over the tree leaves (undefined when none is over it) — which that
 * relay enforces on its side.
 */
export async function checkTreeBudget(
  deps: BudgetDeps,
  input: { userId: string; sessionId: string; startsSession: boolean },
  now: Date,
): Promise<BudgetLimits | undefined> {
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId);
  await refuseOverBudget(deps, { sessionId: session.id, startsSession: input.startsSession, nothingDone: 'Nothing was sent to the paired relay.' }, now);
  let carried: BudgetLimits | undefined;
  for (const budget of await deps.budgets.governing(session.id)) {
    const { remaining } = await measure(deps, budget, now);
    carried = carried === undefined ? remaining : narrowest(carried, remaining);
  }
  return carried;
}

/** Keeps a paired relay's report of what a session the conversation started there spent (its tree there). */
export async function noteRemoteTreeSpend(deps: BudgetDeps, input: RemoteTreeReport & { userId: string }, now: Date): Promise<void> {
  const session = await deps.sessions.findSession(input.sessionId);
  if (session === undefined || session.userId !== input.userId) throw noSuchSession(deps.relay.name, input.sessionId);
  if (input.relay === '' || input.remoteSessionId === '')
    throw invalidInput('relay and remote_session_id are required', { field: input.relay === '' ? 'relay' : 'remote_session_id' });
  const { userId: _userId, ...report } = input;
  if (await deps.budgets.noteRemoteReport(report, now)) await checkBudgets(deps, session.id, now);
}
