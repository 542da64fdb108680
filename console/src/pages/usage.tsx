// Usage: each provider's meters this month (used of the allowance, when it resets), each as a small bar.
import { ErrorNote } from '../parts/error-note.tsx';
import { when } from '../parts/format.ts';
import { useApi } from '../use-api.ts';

interface Meter {
  name: string;
  used: number;
  allowance: number | null;
  remaining: number | null;
  utilization: number | null;
  resetsAt: string | null;
}

interface ProviderUsage {
  provider: string;
  status: string;
  reason?: string;
  meters: Meter[];
  pausedUntil?: string;
}

const STATUS: Record<string, string> = { not_tracked: 'not tracked', not_set_up: 'not set up' };

export function Usage() {
  const usage = useApi<{ providers: ProviderUsage[]; claudeUsageLimitPaused: boolean }>('/api/v1/usage', 'sessions');
  return (
    <main id="main">
      <h1>Usage</h1>
      <ErrorNote error={usage.error} />
      {usage.data?.claudeUsageLimitPaused ? <p class="error">Claude sessions are paused: the plan's usage limit is reached.</p> : null}
      <div class="columns">
        {(usage.data?.providers ?? []).map((provider) => (
          <section key={provider.provider} aria-labelledby={`usage-${provider.provider}`} class="card plain">
            <h2 id={`usage-${provider.provider}`}>{provider.provider}</h2>
            <p class="muted">
              {STATUS[provider.status] ?? provider.status}
              {provider.reason ? ` — ${provider.reason}` : ''}
              {provider.pausedUntil ? ` · paused until ${when(provider.pausedUntil)}` : ''}
            </p>
            {provider.meters.map((meter) => {
              const share = meter.utilization ?? (meter.allowance ? meter.used / meter.allowance : null);
              return (
                <div key={meter.name} class="meter">
                  <div>
                    {meter.name}: {meter.used.toLocaleString()}
                    {meter.allowance !== null ? ` of ${meter.allowance.toLocaleString()}` : ''}
                    {meter.resetsAt ? <span class="muted small"> · resets {when(meter.resetsAt)}</span> : null}
                  </div>
                  {share !== null ? (
                    <div class="bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)} aria-label={`${meter.name} used`}>
                      <span style={{ width: `${Math.min(100, Math.round(share * 100))}%` }} />
                    </div>
                  ) : null}
                </div>
              );
            })}
          </section>
        ))}
      </div>
    </main>
  );
}
