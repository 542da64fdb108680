// k8s/monitoring: the alert rules (a PrometheusRule) and the Grafana dashboard read only the metrics
// docs/operations.md documents, under the names the Collector's Prometheus exporter gives them, the dashboard
// shows each of them, and every alert points at the section of operations.md that says what to do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
const rule = parse(readFileSync(join(ROOT, 'k8s/monitoring/prometheus-rule.yaml'), 'utf8')) as any;
const dashboard = JSON.parse(readFileSync(join(ROOT, 'k8s/monitoring/grafana-dashboard.json'), 'utf8')) as any;

/** The documented metrics (operations.md's table), as Prometheus names: dots to underscores, `_seconds` for `s`. */
function documentedSeries(): Map<string, string> {
  const rows = [...operations.matchAll(/^\| `([a-z._]+)` \| `([^`]+)` \| (counter|histogram|gauge) \|/gm)];
  return new Map(
    rows.map(([, name, unit, kind]) => {
      const base = name!.replaceAll('.', '_') + (unit === 's' ? '_seconds' : '');
      return [name!, kind === 'counter' ? `${base}_total` : base];
    }),
  );
}

/** The kube-state-metrics series operations.md lists (its table of `kube_…` series). */
function documentedKubeSeries(): string[] {
  return [...operations.matchAll(/^\| `(kube_[a-z_]+)` \|/gm)].map((m) => m[1]!);
}

/** The metric names an expression reads, with a histogram's _bucket/_count/_sum taken off. */
function seriesIn(expr: string): string[] {
  // Label names (in `by (…)` and `{…}`) share the metrics' prefixes: taken out first.
  const metricsOnly = expr.replace(/\b(by|without)\s*\([^)]*\)/g, '').replace(/\{[^}]*\}/g, '');
  return [...metricsOnly.matchAll(/\b((?:relay|rpc|messaging|kube)_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-');

describe('monitoring', () => {
  const series = documentedSeries();
  const rules = (rule.spec.groups as { rules: { alert: string; expr: string; labels: { severity: string }; annotations: { runbook: string } }[] }[]).flatMap(
    (g) => g.rules,
  );
  const targets = (dashboard.panels as { targets: { expr: string }[] }[]).flatMap((panel) => panel.targets.map((t) => t.expr));

  it("operations.md documents the relay's ten metrics and the kube-state-metrics series the alerts read", () => {
    expect(series.size).toBe(10);
    expect(documentedKubeSeries()).toEqual([
      'kube_pod_status_ready',
      'kube_pod_container_status_waiting_reason',
      'kube_statefulset_status_replicas_ready',
      'kube_statefulset_replicas',
    ]);
  });

  it('the alert rules read documented metrics only, each with a severity and a runbook section that exists', () => {
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    const headings = new Set([...operations.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!)));
    expect(rules.length).toBeGreaterThanOrEqual(6);
    for (const { alert, expr, labels, annotations } of rules) {
      expect(seriesIn(expr).length, alert).toBeGreaterThan(0);
      for (const name of seriesIn(expr)) expect([...series.values(), ...documentedKubeSeries()], `${alert}: ${name}`).toContain(name);
      expect(['warning', 'critical'], alert).toContain(labels.severity);
      const [file, section] = annotations.runbook.split('#');
      expect(file, alert).toBe('docs/operations.md');
      expect(headings.has(section!), `${alert}: #${section}`).toBe(true);
    }
  });

  it('alerts on pods not ready, crash loops, NATS servers lost and an outbox that stops draining', () => {
    const byAlert = new Map(rules.map((r) => [r.alert, r]));
    expect(byAlert.get('RelayPodNotReady')?.expr).toContain('kube_pod_status_ready');
    expect(byAlert.get('RelayPodCrashLooping')?.expr).toContain('CrashLoopBackOff');
    expect(byAlert.get('RelayNatsDown')?.expr).toContain('statefulset="nats"');
    expect(byAlert.get('RelayOutboxNotDraining')?.expr).toContain('relay_outbox_oldest_age_seconds');
  });

  it('the dashboard reads documented metrics only and shows every one of them', () => {
    const shown = new Set(targets.flatMap(seriesIn));
    for (const name of shown) expect([...series.values()], name).toContain(name);
    expect([...series.values()].filter((name) => !shown.has(name))).toEqual([]);
    expect(new Set(dashboard.panels.map((p: { id: number }) => p.id)).size).toBe(dashboard.panels.length);
  });
});
