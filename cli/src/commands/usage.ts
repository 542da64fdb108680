import { loadClientConfig } from '../config.ts';
import { formatTable } from '../format-table.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi } from '../gateway-api.ts';

type UsageMeter = Schemas['UsageReport']['providers'][number]['meters'][number];
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';

/**
 * `relay usage`: what each provider's plan has used this month and has left, as relay_tool's usage reports it; with
 * `--days N`, what each used on each of the last N UTC days instead. Both are relay-wide, per provider.
 */
export async function runUsage(options: { json: boolean; days?: number }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  const report = options.days === undefined ? await api.usage() : await api.dailyUsage(options.days);
  const text = options.json ? JSON.stringify(report, null, 2) : 'days' in report ? formatDailyUsage(report) : formatUsage(report);
  io.out.write(`${text}\n`);
  return 0;
}

/**
 * The series as a table: a row per UTC day, oldest first, and a total; per provider a column of tokens (input +
 * output) and, where its cost is tracked, one of cost.
 */
export function formatDailyUsage(report: Schemas['DailyUsage']): string {
  if (report.providers.length === 0) return 'No provider on this relay has its use tracked.';
  const headers = [
    'DAY',
    ...report.providers.flatMap((provider) => [`${provider.provider} TOKENS`, ...(provider.costTracked ? [`${provider.provider} COST`] : [])]),
  ];
  const cells = (values: { tokens: number; costUsd: number }[]) =>
    report.providers.flatMap((provider, index) => [tokens(values[index]!.tokens), ...(provider.costTracked ? [usd(values[index]!.costUsd)] : [])]);
  const rows = report.days.map((day, dayIndex) => [day, ...cells(report.providers.map((provider) => provider.days[dayIndex] ?? { tokens: 0, costUsd: 0 }))]);
  const totals = report.providers.map((provider) => ({
    tokens: provider.days.reduce((sum, day) => sum + day.tokens, 0),
    costUsd: provider.days.reduce((sum, day) => sum + day.costUsd, 0),
  }));
  return formatTable(headers, [...rows, ['TOTAL', ...cells(totals)]]);
}

function tokens(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

/** One row per provider and meter: status, used, allowance, left and when it resets; a paused Claude says so below. */
export function formatUsage(report: Schemas['UsageReport']): string {
  if (report.providers.length === 0) return 'No providers on this relay.';
  const rows = report.providers.flatMap((provider) => {
    const status = provider.pausedUntil ? `${provider.status} until ${provider.pausedUntil}` : provider.status;
    if (provider.meters.length === 0) return [[provider.provider, status, '-', '-', '-', '-', '-', provider.reason ?? '']];
    return provider.meters.map((meter) => [
      provider.provider,
      status,
      meter.name,
      amount(meter, meter.used),
      amountOrDash(meter, meter.allowance),
      amountOrDash(meter, meter.remaining),
      meter.resetsAt ?? '-',
      provider.reason ?? '',
    ]);
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
