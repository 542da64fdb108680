import type { GetDailyUsageResponse } from '@relay/proto/relay/session/v1/session_service';
import type { DailyUsageReport } from '../../../domain/usage/daily-usage.ts';

/** A daily usage series as relay.session.v1.GetDailyUsageResponse (tokens as int64 strings). */
export function toDailyUsageMessage(report: DailyUsageReport): GetDailyUsageResponse {
  return {
    days: report.days,
    providers: report.providers.map((provider) => ({
      provider: provider.provider,
      costTracked: provider.costTracked,
      days: provider.days.map((day) => ({
        day: day.day,
        inputTokens: String(day.inputTokens),
        outputTokens: String(day.outputTokens),
        costUsd: day.costUsd,
        turns: day.turns,
      })),
    })),
  };
}
