// The loopback receiver decodes what the SDK's own OTLP metric exporters send, in both encodings: the metrics
// test below relies on it, so it is checked against the real encoders rather than hand-made bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OtlpReceiver } from '../harness/otlp-receiver.ts';

const receiver = new OtlpReceiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

describe.each([
  { encoding: 'json', exporter: () => new JsonExporter({ url: `${receiver.endpoint}/v1/metrics` }) },
  { encoding: 'protobuf', exporter: () => new ProtobufExporter({ url: `${receiver.endpoint}/v1/metrics` }) },
])('OtlpReceiver, metrics in $encoding', ({ encoding, exporter }) => {
  it('gets each point with its service (the resource), name, unit, kind, attributes, value and count', async () => {
    const reader = new PeriodicExportingMetricReader({ exporter: exporter() as PushMetricExporter, exportIntervalMillis: 60_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const meter = provider.getMeter('receiver-test');
    const name = (metric: string) => `test.${encoding}.${metric}`;
    meter.createCounter(name('calls'), { unit: '{call}' }).add(3, { 'relay.tool.action': 'send' });
    const histogram = meter.createHistogram(name('duration'), { unit: 's' });
    histogram.record(0.25, { 'rpc.method': 'a/B' });
    histogram.record(0.5, { 'rpc.method': 'a/B' });
    meter.createObservableGauge(name('held'), { unit: '{event}' }).addCallback((result) => result.observe(7, { status: 'held' }));
    await provider.shutdown();

    const service = expect.stringMatching(/^unknown_service/);
    expect(receiver.points.filter((point) => point.name.startsWith(`test.${encoding}.`))).toEqual([
      { service, name: name('calls'), unit: '{call}', kind: 'sum', attributes: { 'relay.tool.action': 'send' }, value: 3, count: 1 },
      { service, name: name('duration'), unit: 's', kind: 'histogram', attributes: { 'rpc.method': 'a/B' }, value: 0.75, count: 2 },
      { service, name: name('held'), unit: '{event}', kind: 'gauge', attributes: { status: 'held' }, value: 7, count: 1 },
    ]);
  });
});
