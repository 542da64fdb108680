import { createRequire } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { runningTelemetry, telemetryRunning } from './shutdown-telemetry.ts';
import { signalsFromEnv } from './signals-from-env.ts';

export interface TelemetryOptions {
  /** Overrides OTEL_SERVICE_NAME (tests; services set the variable instead). */
  serviceName?: string;
  /** Replaces the exporters chosen from OTEL_* (tests pass a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessors?: SpanProcessor[];
  /** The variables to read; the SDK itself also reads process.env, so this defaults to it. */
  env?: Record<string, string | undefined>;
}

const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/**
 * `@relay/telemetry/start`, apart from the package's main entry so that a service which exports nothing never loads
 * the SDK. Starts the OpenTelemetry SDK once per process (later calls do nothing): http, gRPC and Fastify
 * instrumentations, exporters from OTEL_* only. Must run before the instrumented modules load.
 */
export function startTelemetry(options: TelemetryOptions = {}): void {
  if (telemetryRunning()) return;
  const signals = signalsFromEnv(options.env ?? process.env);
  const configuration: Partial<NodeSDKConfiguration> = {
    instrumentations: [
      // Probes would otherwise start a trace every few seconds per pod.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => PROBE_PATHS.has(request.url ?? '') }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      // Only queries made inside a traced operation: the outbox relay's polling is not worth a trace each. A query's
      // span holds its wait for a connection; a span of its own for taking one from the pool told nothing more.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      // The route on the request's span, not a span per hook and per handler: those were 7 of the gateway's 11 spans
      // for each relay_tool read (bench/history.md, "What tracing costs").
      new FastifyOtelInstrumentation({ registerOnInitialization: true, instrumentHooks: false, instrumentHandler: false }),
    ],
  };
  if (options.serviceName) configuration.serviceName = options.serviceName;
  if (options.spanProcessors) configuration.spanProcessors = options.spanProcessors;
  // Without an exporter no span is recorded (the cost of a span per call, per RPC and per query is spared), but
  // each still gets its ids, so trace ids reach the logs and propagate downstream.
  else if (!signals.traces) {
    configuration.spanProcessors = [new NoopSpanProcessor()];
    configuration.sampler = new AlwaysOffSampler();
  }
  // No reader, no MeterProvider: every instrument stays the API's no-op.
  if (!signals.metrics) configuration.metricReaders = [];
  if (!signals.logs) configuration.logRecordProcessors = [];

  const sdk = new NodeSDK(configuration);
  sdk.start();
  runningTelemetry(sdk);
  // ESM imports of grpc-js bypass require-in-the-middle (always under vitest); requiring it once here
  // patches the shared CJS exports that every later import reuses.
  createRequire(import.meta.url)('@grpc/grpc-js');
}
