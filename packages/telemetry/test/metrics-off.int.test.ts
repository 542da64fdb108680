// Without an OTLP endpoint or a named exporter the SDK gets no metric reader, so no MeterProvider is registered
// and every instrument is the API's no-op: metrics cost nothing. (Its own file: the SDK is process-global.)
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, expect, it } from 'vitest';
import { shutdownTelemetry } from '../src/index.ts';
import { startTelemetry } from '../src/start-telemetry.ts';

afterAll(() => shutdownTelemetry());

it('registers no MeterProvider when no endpoint and no exporter is set', () => {
  startTelemetry({ serviceName: 'metrics-off', env: {} });
  expect(metrics.getMeterProvider()).not.toBeInstanceOf(MeterProvider);
});
