// Usage over time: what each tracked provider used on each UTC day of the last 30, relay-wide as the monthly meters
// are (GET /api/v1/usage/daily). Plain SVG: a column per day, drawn to one scale across the providers of a chart.
// Each chart says what it shows in its accessible name (total, busiest day); each column's value is in its SVG title;
// and the same numbers are a table below for reading without sight.
import type { Schemas } from '@relay/user-api';
import { useApi } from '../use-api.ts';

type ProviderSeries = Schemas['DailyUsage']['providers'][number];
type Day = ProviderSeries['days'][number];

const DAYS = 30;

/** How each chart reads: its title, the value of a day, and that value with its unit. */
const METRICS = {
  tokens: { title: 'Tokens per day', value: (day: Day) => day.tokens, amount: (value: number) => `${value.toLocaleString()} tokens` },
  cost_usd: { title: 'Cost per day', value: (day: Day) => day.costUsd, amount: usd },
} as const;

type Metric = keyof typeof METRICS;

function usd(value: number): string {
  return `US$${value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: value !== 0 && Math.abs(value) < 1 ? 4 : 2 })}`;
}

/** "Nov 30" for a YYYY-MM-DD day, read in UTC as the relay counts it. */
function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function UsageOverTime() {
  const series = useApi('/api/v1/usage/daily', { query: { days: DAYS } }, 'sessions');
  const data = series.data;
  if (data === undefined || data.providers.length === 0) return null;
  const priced = data.providers.filter((provider) => provider.costTracked);
  return (
    <section aria-labelledby="over-time" class="over-time">
      <h2 id="over-time">Over time</h2>
      <p class="muted">
        Each day (UTC) of the last {data.days.length}, {shortDay(data.days[0]!)} to {shortDay(data.days.at(-1)!)}, for the whole relay.
      </p>
      <div class="columns">
        <DailyChart metric="tokens" days={data.days} providers={data.providers} />
        {priced.length > 0 ? <DailyChart metric="cost_usd" days={data.days} providers={priced} /> : null}
      </div>
      <details class="over-time-table">
        <summary>The days as a table</summary>
        <div class="table-scroll" role="region" aria-label="Usage per day and provider" tabIndex={0}>
          <table>
            <caption class="visually-hidden">Usage per day and provider</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {data.providers.map((provider) => (
                  <th key={provider.provider} scope="col">
                    {provider.provider}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.days.map((day, index) => (
                <tr key={day} data-day={day}>
                  <th scope="row">{day}</th>
                  {data.providers.map((provider) => {
                    const used = provider.days[index];
                    return (
                      <td key={provider.provider}>
                        {used ? METRICS.tokens.amount(used.tokens) : '—'}
                        {used && provider.costTracked ? <div class="muted small">{usd(used.costUsd)}</div> : null}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

/** One metric, a row per provider: a column per day, the tallest day of any provider the full height. */
function DailyChart({ metric, days, providers }: { metric: Metric; days: string[]; providers: ProviderSeries[] }) {
  const { title, value, amount } = METRICS[metric];
  const scale = Math.max(0, ...providers.flatMap((provider) => provider.days.map(value)));
  const id = `daily-${metric}`;
  const width = days.length * 10;
  return (
    <figure class="chart daily" aria-labelledby={id} data-chart={id}>
      <figcaption id={id}>{title}</figcaption>
      <ul>
        {providers.map((provider) => {
          const total = provider.days.reduce((sum, day) => sum + value(day), 0);
          const busiest = provider.days.reduce<Day | undefined>((best, day) => (value(day) > (best ? value(best) : 0) ? day : best), undefined);
          const said = `${provider.provider}: ${amount(total)} in ${days.length} days${busiest ? `, most on ${busiest.day}: ${amount(value(busiest))}` : ''}`;
          return (
            <li key={provider.provider}>
              <span class="chart-label" aria-hidden="true">
                {provider.provider}
              </span>
              <span class="chart-value" aria-hidden="true">
                {amount(total)}
              </span>
              <svg class="chart-days" viewBox={`0 0 ${width} 40`} preserveAspectRatio="none" role="img" aria-label={said} data-provider={provider.provider}>
                <line class="baseline" x1="0" x2={width} y1="40" y2="40" />
                {provider.days.map((day, index) => {
                  const height = scale > 0 ? Math.round((value(day) / scale) * 400) / 10 : 0;
                  return (
                    <rect key={day.day} class="day" x={index * 10 + 1} y={40 - height} width="8" height={height} data-day={day.day} data-value={value(day)}>
                      <title>{`${provider.provider}, ${day.day}: ${amount(value(day))}`}</title>
                    </rect>
                  );
                })}
              </svg>
              <span class="chart-axis" aria-hidden="true">
                <span>{shortDay(days[0]!)}</span>
                <span>{shortDay(days.at(-1)!)}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
