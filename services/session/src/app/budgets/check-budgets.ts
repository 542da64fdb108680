import type { Logger } from '@relay/telemetry';
import { CARD_BEING_RAISED, checkBudget, metersLine, raisedOnce, type Budget, type BudgetMeter } from '../../domain/budgets/budget.ts';
import type { SessionStore } from '../ports.ts';
import { measure } from './get-tree-usage.ts';
import type { BudgetCards, BudgetStore } from './ports.ts';

/** What budgets are set, checked and decided with. */
export interface BudgetDeps {
  budgets: BudgetStore;
  cards: BudgetCards;
  sessions: Pick<SessionStore, 'findSession'>;
  relay: { name: string };
  /** Nudges the turn runners: a tree a budget held may run again, or its running turns were asked to stop. */
  turnsMayRun: () => void;
  logger?: Logger;
}

/**
 * Checks every budget that governs `sessionId` against its tree's spend at `now` (after a turn's usage is recorded,
 * a setting, or the minutes running out): at WARN_AT the owner gets a card (once per setting); at 100 % the budget is
 * reached — no new turn starts in its tree — and the owner gets the card that raises or ends it; past one turn's
 * worth the tree's running turns are stopped. A transition is taken once however many replicas check at once.
 */
export async function checkBudgets(deps: BudgetDeps, sessionId: string, now: Date): Promise<void> {
  for (const budget of await deps.budgets.governing(sessionId)) {
    const { spend, meters } = await measure(deps, budget, now);
    const verdict = checkBudget(budget, spend, now);
    // Whoever takes the transition (with the card marked as being raised) raises the card, once.
    const raising: Budget | undefined = verdict.reach
      ? { ...budget, state: 'reached', cardId: CARD_BEING_RAISED }
      : budget.state === 'reached' && budget.cardId === null
        ? // Its card could not be raised when it was reached: the owner must still be asked.
          { ...budget, cardId: CARD_BEING_RAISED }
        : verdict.warn
          ? { ...budget, warned: true, cardId: CARD_BEING_RAISED }
          : undefined;
    if (raising !== undefined && (await deps.budgets.transition(budget, raising, now))) await raiseCard(deps, raising, meters, now);
    // The runner holding a turn may be this replica: it stops the turn now rather than at its next look.
    if (verdict.stopRunning && (await deps.budgets.stopRunningTurns(budget.sessionId)) > 0) deps.turnsMayRun();
  }
}

/** The turn runner's look, on every replica: the budgets whose minutes ran out by `now` are checked. */
export async function checkRunOutMinutes(deps: BudgetDeps, now: Date): Promise<void> {
  for (const budget of await deps.budgets.minutesRunOut(now)) await checkBudgets(deps, budget.sessionId, now);
}

/**
 * Applies the person's decision on a budget's card (card_decided): Allow on a reached budget raises each used-up
 * limit (raisedOnce) and lets the tree run; Allow on the 80 % card keeps it going; Deny ends the budget — no turn
 * starts in the tree until the person sets a budget again or removes it, and its running turns stop. A card withdrawn
 * or dismissed only stops being the budget's card. A redelivered decision changes nothing: the card is no longer the
 * budget's.
 */
export async function applyBudgetCard(deps: BudgetDeps, card: { id: string; status: 'allowed' | 'denied' | 'other' }, now: Date): Promise<void> {
  const budget = await deps.budgets.byCard(card.id);
  if (budget === undefined) return;
  if (card.status === 'denied') {
    if (
      (await deps.budgets.transition(budget, { ...budget, state: 'ended', cardId: null }, now)) &&
      (await deps.budgets.stopRunningTurns(budget.sessionId)) > 0
    )
      deps.turnsMayRun();
    return;
  }
  if (card.status === 'allowed' && budget.state === 'reached') {
    const { spend } = await measure(deps, budget, now);
    const raised: Budget = { ...budget, limits: raisedOnce(budget, spend, now), state: 'active', warned: false, cardId: null };
    if (await deps.budgets.transition(budget, raised, now)) deps.turnsMayRun();
    return;
  }
  await deps.budgets.transition(budget, { ...budget, cardId: null }, now);
}

/**
 * Raises the owner's card for the budget's state (the 80 % notice or the 100 % hold) and keeps its id on the budget in
 * place of CARD_BEING_RAISED; a card that could not be raised leaves none (null), which the next check raises.
 */
async function raiseCard(deps: BudgetDeps, budget: Budget, meters: readonly BudgetMeter[], now: Date): Promise<void> {
  const session = await deps.sessions.findSession(budget.sessionId);
  const title = session === undefined ? budget.sessionId : `"${session.title}"`;
  const reached = budget.state === 'reached';
  const text = reached
    ? {
        title: `Budget reached for ${title}: no new turn starts in its tree`,
        lines: [
          `Used: ${metersLine(meters)}`,
          'Allow raises each used-up limit by its size again; Deny ends the tree’s work (its running turns stop).',
          'Other figures: relay budget SESSION --cost-usd N …, or the Budget of this conversation in the console.',
        ],
      }
    : {
        title: `Budget 80 % used for ${title}`,
        lines: [`Used: ${metersLine(meters)}`, 'Allow lets the tree go on; Deny ends its work now (its running turns stop).'],
      };
  try {
    const cardId = await deps.cards.raise({
      userId: budget.userId,
      sessionId: budget.sessionId,
      key: `budget:${budget.sessionId}:${budget.state}:${now.getTime()}`,
      ...text,
    });
    await deps.budgets.transition(budget, { ...budget, cardId }, now);
  } catch (error) {
    // The hold is in force without the card; the next check raises it.
    deps.logger?.warn({ err: error, sessionId: budget.sessionId }, 'could not raise the budget card; the next check tries again');
    await deps.budgets.transition(budget, { ...budget, cardId: null }, now);
  }
}
