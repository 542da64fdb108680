import type { DailyTotals } from '../../domain/usage/daily-usage.ts';
import type { ProviderPause, TurnUsage, UsageTotals } from '../../domain/usage/usage.ts';
import type { UsageHistory, UsageLedger } from '../../app/usage/ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** The usage ledger in the session service's database (turn_usage, provider_pauses). */
export class PrismaUsageLedger implements UsageLedger, UsageHistory {
  constructor(private readonly prisma: PrismaClient) {}

  async record(usage: TurnUsage): Promise<void> {
    const { messageId, ...fields } = usage;
    await this.prisma.turnUsage.upsert({ where: { messageId }, create: usage, update: fields });
  }

  async totalsSince(since: Date): Promise<UsageTotals[]> {
    const rows = await this.prisma.turnUsage.groupBy({
      by: ['provider'],
      where: { recordedAt: { gte: since } },
      _sum: { inputTokens: true, outputTokens: true, costUsd: true },
    });
    return rows.map((row) => ({
      provider: row.provider,
      inputTokens: row._sum.inputTokens ?? 0,
      outputTokens: row._sum.outputTokens ?? 0,
      costUsd: row._sum.costUsd ?? 0,
    }));
  }

  async dailyTotalsSince(since: Date): Promise<DailyTotals[]> {
    // recorded_at is a timestamp without time zone holding UTC (Prisma's DateTime): its date is the UTC day.
    const rows = await this.prisma.$queryRaw<{ provider: string; day: string; input_tokens: number; output_tokens: number; cost_usd: number; turns: number }[]>`
      SELECT provider, to_char(recorded_at, 'YYYY-MM-DD') AS day,
             SUM(input_tokens)::float8 AS input_tokens, SUM(output_tokens)::float8 AS output_tokens,
             COALESCE(SUM(cost_usd), 0)::float8 AS cost_usd, COUNT(*)::int AS turns
        FROM turn_usage
       WHERE recorded_at >= (${since.toISOString()}::timestamptz AT TIME ZONE 'UTC')
       GROUP BY provider, day
       ORDER BY provider, day`;
    return rows.map((row) => ({
      provider: row.provider,
      day: row.day,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      costUsd: row.cost_usd,
      turns: row.turns,
    }));
  }

  async pause(pause: ProviderPause): Promise<void> {
    await this.prisma.providerPause.upsert({ where: { provider: pause.provider }, create: pause, update: { until: pause.until, reason: pause.reason } });
  }

  async pausesAt(now: Date): Promise<ProviderPause[]> {
    return this.prisma.providerPause.findMany({ where: { until: { gt: now } }, orderBy: { provider: 'asc' } });
  }
}
