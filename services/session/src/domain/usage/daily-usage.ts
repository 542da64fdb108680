/**
 * Usage over time (issue 40): what each tracked provider's turns used on each UTC day of the last few days, from
 * the same ledger as the monthly meters and relay-wide like them. A day with nothing is a day of zeros, so every
 * provider's series has one entry per day. Pure: every function takes `now`.
 */
import type { ProviderInfo } from '../catalogue/provider-catalogue.ts';
import { tracksCost, tracksUsage, type UsageTotals } from './usage.ts';

/** Days in a series when none is asked for, and the most that may be. */
export const DAILY_USAGE_DAYS_DEFAULT = 30;
export const DAILY_USAGE_DAYS_MAX = 366;

const DAY_MS = 86_400_000;

/** A provider's sums over one UTC day (YYYY-MM-DD), as the ledger groups them. */
export interface DailyTotals extends UsageTotals {
  day: string;
  turns: number;
}

export interface DailyUsage {
  day: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  turns: number;
}

export interface ProviderDailyUsage {
  provider: string;
  costTracked: boolean;
  days: DailyUsage[];
}

export interface DailyUsageReport {
  /** The UTC days, oldest first; the last is `now`'s. */
  days: string[];
  providers: ProviderDailyUsage[];
}

/** The UTC day of an instant, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The first instant of the oldest day of a series of `days` days ending with `now`'s UTC day. */
export function dailySeriesStart(days: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
}

/** The `days` UTC days ending with `now`'s, oldest first. */
export function dailySeriesDays(days: number, now: Date): string[] {
  const start = dailySeriesStart(days, now).getTime();
  return Array.from({ length: days }, (_, index) => utcDay(new Date(start + index * DAY_MS)));
}

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/**
 * The series of every provider whose use the relay tracks and that is set up or used something in the period, in
 * the relay's order; then any other provider the ledger has turns of in the period (one no longer configured), by
 * name. A provider whose cost is not tracked reads US$0 each day and says so (costTracked false).
 */
export function buildDailyUsage(input: {
  providers: readonly ProviderInfo[];
  totals: readonly DailyTotals[];
  /** The OpenAI-compatible providers with prices configured (tracksCost). */
  priced: readonly string[];
  days: number;
  now: Date;
}): DailyUsageReport {
  const days = dailySeriesDays(input.days, input.now);
  const shown = new Set(days);
  const totals = input.totals.filter((row) => shown.has(row.day));
  const used = new Set(totals.map((row) => row.provider));
  const known = new Set(input.providers.map((provider) => provider.id));
  const series = (provider: string, costTracked: boolean): ProviderDailyUsage => ({
    provider,
    costTracked,
    days: days.map((day) => {
      const row = totals.find((candidate) => candidate.provider === provider && candidate.day === day);
      return {
        day,
        inputTokens: row?.inputTokens ?? 0,
        outputTokens: row?.outputTokens ?? 0,
        costUsd: costTracked ? round(row?.costUsd ?? 0) : 0,
        turns: row?.turns ?? 0,
      };
    }),
  });
  const configured = input.providers
    .filter((provider) => tracksUsage(provider) && (provider.available || used.has(provider.id)))
    .map((provider) => series(provider.id, tracksCost(provider, input.priced)));
  const others = [...used]
    .filter((provider) => !known.has(provider))
    .sort()
    .map((provider) =>
      series(
        provider,
        totals.some((row) => row.provider === provider && row.costUsd > 0),
      ),
    );
  return { days, providers: [...configured, ...others] };
}
