// Usage: each provider's meters this month, from the relay's own accounting of its turns. A small chart per meter
// (tokens, cost) puts the tracked providers side by side: a bar for what each used, its allowance marked where one
// is set. Every bar carries its value as text (an SVG title and the row's label), so the chart reads without sight.
// Below them, usage over time: the last 30 days, day by day (usage-over-time.tsx).
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import type { Schemas } from '@relay/user-api';
import { useApi } from '../use-api.ts';
import { UsageOverTime } from './usage-over-time.tsx';

type ProviderUsage = Schemas['UsageReport']['providers'][number];
type Meter = ProviderUsage['meters'][number];

const STATUS: Record<string, string> = { ok: 'tracked', limit_reached: 'at its limit', not_tracked: 'not tracked', not_set_up: 'not set up' };

/** How each meter reads: its title, and a value with its unit. */
const METERS: Record<string, { title: string; amount: (value: number) => string }> = {
  tokens: { title: 'Tokens', amount: (value) => `${value.toLocaleString()} tokens` },
  cost_usd: { title: 'Cost', amount: usd },
};

function usd(value: number): string {
  // Small sums keep their cents' fractions: US$0.0042 rather than US$0.00.
  return `US$${value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: Math.abs(value) < 1 ? 4 : 2 })}`;
}

function amountOf(meter: string, value: number): string {
  return (METERS[meter]?.amount ?? ((number: number) => number.toLocaleString()))(value);
}

export function Usage() {
  const usage = useApi('/api/v1/usage', {}, 'sessions');
  // The providers whose use is tracked first, then those not tracked, then those not set up; each in the relay's order.
  const providers = [...(usage.data?.providers ?? [])].sort((a, b) => rank(a) - rank(b));
  const tracked = providers.filter((provider) => provider.meters.length > 0);
  const resetsAt = tracked.flatMap((provider) => provider.meters).find((meter) => meter.resetsAt !== null)?.resetsAt;
  return (
    <main id="main">
      <h1>Usage</h1>
      <ErrorNote error={usage.error} />
      {usage.data?.claudeUsageLimitPaused ? <p class="error">Claude sessions are paused: the plan's usage limit is reached.</p> : null}
      {usage.data && tracked.length === 0 ? <p class="muted">No provider on this relay has its use tracked: nothing to chart.</p> : null}
      {tracked.length > 0 ? (
        <>
          <p class="muted">This calendar month (UTC){resetsAt ? `, until the meters reset ${when(resetsAt)}` : ''}.</p>
          <div class="columns">
            {Object.keys(METERS).map((name) => (
              <MeterChart key={name} name={name} providers={tracked} />
            ))}
          </div>
        </>
      ) : null}
      <UsageOverTime />
      <h2>Providers</h2>
      <table class="providers">
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Status</th>
            <th scope="col">This month</th>
          </tr>
        </thead>
        <tbody>
          {providers.map((provider) => (
            <tr key={provider.provider} data-provider={provider.provider}>
              <th scope="row">{provider.provider}</th>
              <td>
                {STATUS[provider.status] ?? provider.status}
                {provider.pausedUntil ? ` until ${when(provider.pausedUntil)}` : ''}
                {provider.reason ? <div class="muted small">{provider.reason}</div> : null}
              </td>
              <td>
                {provider.meters.length > 0 ? (
                  provider.meters.map((meter) => <div key={meter.name}>{meterText(meter)}</div>)
                ) : (
                  <span class="muted none">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

function rank(provider: ProviderUsage): number {
  if (provider.meters.length > 0) return 0;
  return provider.status === 'not_set_up' ? 2 : 1;
}

/** "150,000 tokens of 500,000 tokens (30%)", or what was used alone when there is no allowance. */
function meterText(meter: Meter): string {
  const used = amountOf(meter.name, meter.used);
  return meter.allowance === null ? used : `${used} of ${amountOf(meter.name, meter.allowance)} (${percent(meter)}%)`;
}

/** A meter's share of its allowance, in whole percent. */
function percent(meter: Meter): number {
  const share = meter.utilization ?? (meter.allowance ? meter.used / meter.allowance : 0);
  return Math.round(share * 100);
}

/**
 * One meter across the providers that have it: a row per provider with a bar for what it used, drawn to one scale
 * (the largest use or allowance), and a tick where its allowance is.
 */
function MeterChart({ name, providers }: { name: string; providers: ProviderUsage[] }) {
  const rows = providers.flatMap((provider) => {
    const meter = provider.meters.find((candidate) => candidate.name === name);
    return meter ? [{ provider: provider.provider, meter }] : [];
  });
  if (rows.length === 0) return null;
  const scale = Math.max(...rows.map(({ meter }) => Math.max(meter.used, meter.allowance ?? 0)));
  const at = (value: number) => (scale > 0 ? Math.min(100, Math.round((value / scale) * 1000) / 10) : 0);
  const title = `${METERS[name]?.title ?? name} this month`;
  const id = `chart-${name}`;
  return (
    <figure class="chart" aria-labelledby={id} data-chart={name}>
      <figcaption id={id}>{title}</figcaption>
      <ul>
        {rows.map(({ provider, meter }) => {
          const said = `${provider}: ${meterText(meter)}`;
          return (
            <li key={provider}>
              <span class="chart-label" aria-hidden="true">
                {provider}
              </span>
              <svg class="chart-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label={said}>
                <rect class="track" x="0" y="0" width="100" height="10" />
                <rect
                  class={meter.allowance !== null && meter.used >= meter.allowance ? 'used over' : 'used'}
                  x="0"
                  y="0"
                  width={at(meter.used)}
                  height="10"
                  data-provider={provider}
                  data-value={meter.used}
                >
                  <title>{said}</title>
                </rect>
                {meter.allowance !== null ? (
                  <line class="allowance" x1={at(meter.allowance)} x2={at(meter.allowance)} y1="0" y2="10">
                    <title>{`allowance ${amountOf(name, meter.allowance)}`}</title>
                  </line>
                ) : null}
              </svg>
              <span class="chart-value" aria-hidden="true">
                {amountOf(name, meter.used)}
                {meter.allowance !== null ? <span class="muted"> of {amountOf(name, meter.allowance)}</span> : null}
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
