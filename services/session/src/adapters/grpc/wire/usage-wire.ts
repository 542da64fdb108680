import type { UsageReport as UsageReportMessage } from '@relay/proto/relay/session/v1/session';
import type { UsageReport } from '../../../domain/usage/usage.ts';

/** A usage report as relay.session.v1.UsageReport. */
export function toUsageReportMessage(report: UsageReport): UsageReportMessage {
  return {
    claudeUsageLimitPaused: report.claudeUsageLimitPaused,
    providers: report.providers.map((provider) => ({
      provider: provider.provider,
      status: provider.status,
      reason: provider.reason,
      pausedUntil: provider.pausedUntil ?? undefined,
      meters: provider.meters.map((meter) => ({
        name: meter.name,
        used: meter.used,
        resetsAt: meter.resetsAt,
        ...(meter.allowance === null ? {} : { allowance: meter.allowance }),
        ...(meter.remaining === null ? {} : { remaining: meter.remaining }),
        ...(meter.utilization === null ? {} : { utilization: meter.utilization }),
      })),
    })),
  };
}
