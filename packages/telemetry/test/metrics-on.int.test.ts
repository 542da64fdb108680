// With an OTLP endpoint the SDK builds its metric reader from OTEL_* and registers a MeterProvider, which the
// relay's instruments pick up. Nothing is exported here: the test ends before the first export interval.
// (Its own file: the SDK is process-global.)
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, expect, it } from 'vitest';
import { shutdownTelemetry } from '../src/index.ts';
import { startTelemetry } from '../src/start-telemetry.ts';

afterAll(() => shutdownTelemetry());

it('registers a MeterProvider when an OTLP endpoint is set', () => {
  startTelemetry({ serviceName: 'metrics-on', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' } });
  expect(metrics.getMeterProvider()).toBeInstanceOf(MeterProvider);
});
