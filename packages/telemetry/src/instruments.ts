import { metrics, type Counter, type Histogram, type Meter, type MeterProvider, type ObservableGauge } from '@opentelemetry/api';
import type { MetricDefinition } from './metric.ts';

/**
 * Returns a getter for a service's instruments, created from the global MeterProvider on first use and
 * again if it changes. The metrics API has no proxy: an instrument made before the SDK registers its
 * provider stays a no-op for good. Without a provider (no exporter) every instrument is a no-op.
 */
export function instruments<T>(scope: string, create: (meter: Meter) => T): () => T {
  let provider: MeterProvider | undefined;
  let made: T | undefined;
  return () => {
    const current = metrics.getMeterProvider();
    if (current !== provider || made === undefined) {
      provider = current;
      made = create(current.getMeter(`@relay/${scope}`));
    }
    return made;
  };
}

/** A histogram as declared in Metric. */
export function histogram(meter: Meter, definition: MetricDefinition): Histogram {
  return meter.createHistogram(definition.name, {
    unit: definition.unit,
    description: definition.description,
    ...(definition.buckets ? { advice: { explicitBucketBoundaries: definition.buckets } } : {}),
  });
}

/** A counter as declared in Metric. */
export function counter(meter: Meter, definition: MetricDefinition): Counter {
  return meter.createCounter(definition.name, { unit: definition.unit, description: definition.description });
}

/** An observable gauge as declared in Metric; its value is read at each export. */
export function observableGauge(meter: Meter, definition: MetricDefinition): ObservableGauge {
  return meter.createObservableGauge(definition.name, { unit: definition.unit, description: definition.description });
}

/** Seconds since `startedAt` (a `performance.now()` reading), for duration histograms in `s`. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
