import type { ProviderCatalogue } from '../catalogue/ports.ts';
import { invalidInput } from '../../domain/errors.ts';
import { buildDailyUsage, dailySeriesStart, DAILY_USAGE_DAYS_DEFAULT, DAILY_USAGE_DAYS_MAX, type DailyUsageReport } from '../../domain/usage/daily-usage.ts';
import type { UsageHistory } from './ports.ts';

/** What the daily series reads: the provider list, the ledger and which providers have prices. */
export interface DailyUsageDeps {
  catalogue: ProviderCatalogue;
  ledger: UsageHistory;
  priced: readonly string[];
}

/** Usage over time: each tracked provider's use on each UTC day of the last `days` days (0 = 30) up to `now`'s. */
export async function getDailyUsage(deps: DailyUsageDeps, input: { days: number }, now: Date): Promise<DailyUsageReport> {
  const days = input.days === 0 ? DAILY_USAGE_DAYS_DEFAULT : input.days;
  if (!Number.isInteger(days) || days < 1 || days > DAILY_USAGE_DAYS_MAX) {
    throw invalidInput(`days must be a whole number from 1 to ${DAILY_USAGE_DAYS_MAX} (default ${DAILY_USAGE_DAYS_DEFAULT}).`, {
      field: 'days',
      min: 1,
      max: DAILY_USAGE_DAYS_MAX,
    });
  }
  const [providers, totals] = await Promise.all([deps.catalogue.providers(), deps.ledger.dailyTotalsSince(dailySeriesStart(days, now))]);
  return buildDailyUsage({ providers, totals, priced: deps.priced, days, now });
}
