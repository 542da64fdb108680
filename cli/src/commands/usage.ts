import { loadClientConfig } from '../config.ts';
import { formatTable } from '../format-table.ts';
import { GatewayApi, type UsageMeter, type UsageReport } from '../gateway-api.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';

/** `relay usage`: what each provider's plan has used this month and has left, as relay_tool's usage reports it. */
export async function runUsage(options: { json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const report = await new GatewayApi(target.url, target.token).usage();
  io.out.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatUsage(report)}\n`);
  return 0;
}

/** One row per provider and meter: status, used, allowance, left and when it resets; a paused Claude says so below. */
export function formatUsage(report: UsageReport): string {
  if (report.providers.length === 0) return 'No providers on this relay.';
  const rows = report.providers.flatMap((provider) => {
    const status = provider.pausedUntil ? `${provider.status} until ${provider.pausedUntil}` : provider.status;
    if (provider.meters.length === 0) return [[provider.provider, status, '-', '-', '-', '-', '-', provider.reason ?? '']];
    return provider.meters.map((meter) => [provider.provider, status, meter.name, amount(meter, meter.used), amountOrDash(meter, meter.allowance), amountOrDash(meter, meter.remaining), meter.resetsAt ?? '-', provider.reason ?? '']);
  });
  const lines = [formatTable(['PROVIDER', 'STATUS', 'METER', 'USED', 'ALLOWANCE', 'LEFT', 'RESETS', 'WHY'], rows)];
  if (report.claudeUsageLimitPaused) lines.push('A Claude usage limit holds the turns of claude and claude-api sessions now.');
  return lines.join('\n');
}

function amountOrDash(meter: UsageMeter, value: number | null): string {
  return value === null ? '-' : amount(meter, value);
}

function amount(meter: UsageMeter, value: number): string {
  return meter.name === 'cost_usd' ? `$${value.toFixed(2)}` : Math.round(value).toLocaleString('en-US');
}
