/**
 * Tests' view of the metrics a process records: a MeterProvider registered globally with a reader that
 * collects on demand, flattened to one point per metric and attribute set.
 */
import { metrics, type Attributes } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

export interface RecordedPoint {
  name: string;
  unit: string;
  attributes: Attributes;
  /** A counter's sum or a gauge's value; a histogram's sum. */
  value: number;
  /** A histogram's count of recordings; 1 otherwise. */
  count: number;
}

class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface MetricRecorder {
  /** Collects now (observable callbacks run) and answers every point. */
  collect(): Promise<RecordedPoint[]>;
  /** Unregisters the provider. */
  stop(): Promise<void>;
}

/** Registers a global MeterProvider for the test; instruments from `instruments()` pick it up on their next use. */
export function recordMetrics(): MetricRecorder {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  metrics.disable();
  metrics.setGlobalMeterProvider(provider);
  return {
    async collect() {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.flatMap((metric) =>
          metric.dataPoints.map((point): RecordedPoint => {
            const histogram = metric.dataPointType === DataPointType.HISTOGRAM;
            const value = point.value as number | { sum?: number; count: number };
            return {
              name: metric.descriptor.name,
              unit: metric.descriptor.unit,
              attributes: point.attributes,
              value: typeof value === 'number' ? value : (value.sum ?? 0),
              count: histogram && typeof value !== 'number' ? value.count : 1,
            };
          }),
        ),
      );
    },
    async stop() {
      metrics.disable();
      await provider.shutdown();
    },
  };
}

// The `@relay/telemetry/testing` entry also gives the span recorder.
export { recordSpans, type ReadableSpan, type SpanRecorder } from './span-recorder.ts';
