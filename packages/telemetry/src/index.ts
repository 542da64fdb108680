export { annotateActiveSpan } from './annotate-active-span.ts';
export { Attr, type AttrName } from './attr.ts';
export { createLogger, type Logger, type LoggerOptions } from './create-logger.ts';
export { counter, histogram, instruments, observableGauge, secondsSince } from './instruments.ts';
export { Metric, RpcAttr, type MetricDefinition } from './metric.ts';
export { onShutdownSignal } from './on-shutdown-signal.ts';
export { signalsFromEnv, type Signals } from './signals-from-env.ts';
export { shutdownTelemetry, startTelemetry, type TelemetryOptions } from './start-telemetry.ts';
export { tracer } from './tracer.ts';
