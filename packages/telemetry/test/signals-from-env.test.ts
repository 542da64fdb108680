import { describe, expect, it } from 'vitest';
import { signalsFromEnv } from '../src/signals-from-env.ts';

describe('signalsFromEnv', () => {
  it.each([
    { env: {}, traces: false },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, traces: true },
    { env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, traces: true },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, traces: false },
    { env: { OTEL_TRACES_EXPORTER: 'console' }, traces: true },
    { env: { OTEL_TRACES_EXPORTER: 'otlp' }, traces: true },
    { env: { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, traces: false },
    { env: { OTEL_TRACES_EXPORTER: 'null' }, traces: false },
  ])('exports traces $traces for $env', ({ env, traces }) => {
    expect(signalsFromEnv(env).traces).toBe(traces);
  });

  it.each([
    { env: {}, metrics: false },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, metrics: true },
    { env: { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics' }, metrics: true },
    { env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, metrics: false },
    { env: { OTEL_METRICS_EXPORTER: 'otlp' }, metrics: true },
    { env: { OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, metrics: false },
  ])('exports metrics $metrics for $env', ({ env, metrics }) => {
    expect(signalsFromEnv(env).metrics).toBe(metrics);
  });

  it('keeps logs off unless an exporter is named', () => {
    expect(signalsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).logs).toBe(false);
    expect(signalsFromEnv({ OTEL_LOGS_EXPORTER: 'none' }).logs).toBe(false);
    expect(signalsFromEnv({ OTEL_LOGS_EXPORTER: 'console' }).logs).toBe(true);
  });
});
