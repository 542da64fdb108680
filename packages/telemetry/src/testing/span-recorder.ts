/** Tests' view of the spans a process records: a tracer provider registered globally, keeping finished spans in memory. */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export type { ReadableSpan };

export interface SpanRecorder {
  /** The spans ended so far, oldest first. */
  spans(): ReadableSpan[];
  reset(): void;
  /** Unregisters the provider and its context manager. */
  stop(): Promise<void>;
}

/** Registers a global tracer provider (and the AsyncLocalStorage context manager) for the test. */
export function recordSpans(): SpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.disable();
  context.disable();
  provider.register();
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
