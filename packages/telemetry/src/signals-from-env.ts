/** Which telemetry signals to export, decided from the standard OTEL_* variables only. */
export interface Signals {
  /** Let the SDK build trace exporters from OTEL_* (otlp, console, zipkin…); false = record but export nothing. */
  traces: boolean;
  /** Let the SDK build metric readers from OTEL_* (otlp, console, prometheus); false = no MeterProvider, instruments are no-ops. */
  metrics: boolean;
  /** Let the SDK build log processors from OTEL_LOGS_EXPORTER; off unless asked (pino writes logs to stdout). */
  logs: boolean;
}

/**
 * Reads the OTEL_* variables the way the SDK does, except that nothing is exported when no exporter
 * and no endpoint is set: the SDK's default (OTLP to localhost) would log a connection error per batch.
 */
export function signalsFromEnv(env: Record<string, string | undefined>): Signals {
  const endpoint = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  return {
    traces: exporting(list(env.OTEL_TRACES_EXPORTER), endpoint || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)),
    metrics: exporting(list(env.OTEL_METRICS_EXPORTER), endpoint || set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)),
    logs: asked(list(env.OTEL_LOGS_EXPORTER)),
  };
}

/** Named exporters decide; with none named, an OTLP endpoint means the SDK's default (otlp). */
function exporting(exporters: string[], endpoint: boolean): boolean {
  return exporters.length > 0 ? !isNone(exporters) : endpoint;
}

function set(value: string | undefined): boolean {
  return Boolean(value?.trim());
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
