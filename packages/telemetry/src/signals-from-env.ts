/** Which telemetry signals to export, decided from the standard OTEL_* variables only. */
export interface Signals {
  /** Let the SDK build trace exporters from OTEL_* (otlp, console, zipkin…); false = record but export nothing. */
  traces: boolean;
  /** Let the SDK build metric readers from OTEL_METRICS_EXPORTER; off unless asked (its default OTLP reader hangs shutdown). */
  metrics: boolean;
  /** Let the SDK build log processors from OTEL_LOGS_EXPORTER; off unless asked (pino writes logs to stdout). */
  logs: boolean;
}

/**
 * Reads the OTEL_* variables the way the SDK does, except that nothing is exported when no exporter
 * and no endpoint is set: the SDK's default (OTLP to localhost) would log a connection error per batch.
 */
export function signalsFromEnv(env: Record<string, string | undefined>): Signals {
  const tracesExporters = list(env.OTEL_TRACES_EXPORTER);
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
  return {
    traces: tracesExporters.length > 0 ? !isNone(tracesExporters) : endpoint,
    metrics: asked(list(env.OTEL_METRICS_EXPORTER)),
    logs: asked(list(env.OTEL_LOGS_EXPORTER)),
  };
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '' && item !== 'null');
}

function isNone(exporters: string[]): boolean {
  return exporters.length === 1 && exporters[0] === 'none';
}

function asked(exporters: string[]): boolean {
  return exporters.length > 0 && !isNone(exporters);
}
