import type { ProviderPause, TurnUsage, UsageTotals } from '../../domain/usage/usage.ts';
import type { UsageLedger } from '../../app/usage/ports.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** The usage ledger in the session service's database (turn_usage, provider_pauses). */
export class PrismaUsageLedger implements UsageLedger {
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

  async pause(pause: ProviderPause): Promise<void> {
    await this.prisma.providerPause.upsert({ where: { provider: pause.provider }, create: pause, update: { until: pause.until, reason: pause.reason } });
  }

  async pausesAt(now: Date): Promise<ProviderPause[]> {
    return this.prisma.providerPause.findMany({ where: { until: { gt: now } }, orderBy: { provider: 'asc' } });
  }
}
