import type { GetDailyUsageResponse } from '@relay/proto/relay/session/v1/session_service';

/** Days GET /api/v1/usage/daily shows when none are asked for, and the most it may. */
export const DAILY_USAGE_DAYS_DEFAULT = 30;
export const DAILY_USAGE_DAYS_MAX = 366;

/**
 * Usage over time as GET /api/v1/usage/daily shows it: the UTC days oldest first, and per tracked provider a day for
 * each, with tokens (input + output), cost in US$ (0 where costTracked is false) and turns.
 */
export function dailyUsageView(answer: GetDailyUsageResponse) {
  return {
    days: answer.days,
    providers: answer.providers.map((provider) => ({
      provider: provider.provider,
      costTracked: provider.costTracked,
      days: provider.days.map((day) => {
        const inputTokens = Number(day.inputTokens);
        const outputTokens = Number(day.outputTokens);
        return { day: day.day, tokens: inputTokens + outputTokens, inputTokens, outputTokens, costUsd: day.costUsd, turns: day.turns };
      }),
    })),
  };
}
