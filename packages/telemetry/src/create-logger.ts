import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  /** The service (or tool) name, written as `service` on every line. */
  name: string;
  level?: string;
  /** Where the JSON lines go; stdout unless a test captures them. */
  destination?: DestinationStream;
}

/** A pino JSON logger to stdout; each line logged inside a span carries its `trace_id` and `span_id`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: activeSpanFields,
    },
    // Synchronous writes: lines stay in order and survive process.exit and crashes; the relay logs little.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

function activeSpanFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
