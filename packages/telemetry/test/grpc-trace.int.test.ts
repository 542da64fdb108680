import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownTelemetry } from '../src/index.ts';
import { startTelemetry } from '../src/start-telemetry.ts';
import type { Echo } from './fixtures/echo-service.ts';

const exporter = new InMemorySpanExporter();
let echo: Echo;

describe('gRPC instrumentation under vitest', () => {
  beforeAll(async () => {
    startTelemetry({ serviceName: 'telemetry-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // grpc-js must load after the SDK started, hence the dynamic import.
    const { startEcho } = await import('./fixtures/echo-service.ts');
    echo = await startEcho();
  });

  afterAll(async () => {
    echo.close();
    await shutdownTelemetry();
  });

  it('records a CLIENT and a SERVER span of one call in one trace', async () => {
    const traceId = await trace.getTracer('@relay/test').startActiveSpan('test.call', async (span) => {
      expect(await echo.call({ hello: 'world' })).toEqual({ hello: 'world' });
      span.end();
      return span.spanContext().traceId;
    });

    // Exports can land late and other tests' spans share the exporter: select this trace's spans.
    await expect.poll(() => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId).length).toBe(3);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    const client = spans.find((span) => span.kind === SpanKind.CLIENT);
    const server = spans.find((span) => span.kind === SpanKind.SERVER);
    expect(client?.name).toBe('grpc.relay.test.v1.EchoService/Echo');
    expect(server?.name).toBe('grpc.relay.test.v1.EchoService/Echo');
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
  });

  it('is idempotent', () => {
    expect(() => startTelemetry({ spanProcessors: [] })).not.toThrow();
  });
});
