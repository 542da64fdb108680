import type { ProviderPause, TurnUsage, UsageTotals } from '../../domain/usage/usage.ts';
import type { UsageLedger } from '../usage/ports.ts';
import { checkBudgets, type BudgetDeps } from './check-budgets.ts';

/**
 * The usage ledger as the provider plug-ins write it, with the budgets over the turn's tree checked as each record
 * lands (docs/adr/0039-tree-budgets.md): a turn's use — at its end, or after each answer for a provider that records as
 * it goes — reaches its budgets before the turn goes on or ends, so the agent waiting for it finds the budget as the
 * turn left it. A check that fails is logged; accounting never fails a turn.
 */
export class BudgetCheckedLedger implements UsageLedger {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly deps: BudgetDeps,
  ) {}

  async record(usage: TurnUsage): Promise<void> {
    await this.ledger.record(usage);
    await checkBudgets(this.deps, usage.sessionId, usage.recordedAt).catch((error: unknown) =>
      this.deps.logger?.warn(
        { err: error, sessionId: usage.sessionId },
        'could not check the budgets over the turn’s tree; the next record or setting checks again',
      ),
    );
  }

  totalsSince(since: Date): Promise<UsageTotals[]> {
    return this.ledger.totalsSince(since);
  }

  pause(pause: ProviderPause): Promise<void> {
    return this.ledger.pause(pause);
  }

  pausesAt(now: Date): Promise<ProviderPause[]> {
    return this.ledger.pausesAt(now);
  }
}
