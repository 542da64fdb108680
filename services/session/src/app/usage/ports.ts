import type { DailyTotals } from '../../domain/usage/daily-usage.ts';
import type { ProviderPause, TurnUsage, UsageTotals } from '../../domain/usage/usage.ts';

/** Where turns' usage and usage-limit pauses are kept. */
export interface UsageLedger {
  /** Records one turn's usage (a second record for the same message replaces it). */
  record(usage: TurnUsage): Promise<void>;
  /** Per provider, the sums of turns recorded at or after `since`. */
  totalsSince(since: Date): Promise<UsageTotals[]>;
  /** Pauses a provider's turns until `until` (a later pause replaces an earlier one). */
  pause(pause: ProviderPause): Promise<void>;
  /** The pauses still in force at `now`. */
  pausesAt(now: Date): Promise<ProviderPause[]>;
}

/** The same ledger read day by day (usage over time). */
export interface UsageHistory {
  /** Per provider and UTC day, the sums of turns recorded at or after `since`. */
  dailyTotalsSince(since: Date): Promise<DailyTotals[]>;
}
