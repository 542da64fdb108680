import { trace, type Tracer } from '@opentelemetry/api';

/** The tracer for a service's own spans, named `@relay/<service>`. */
export function tracer(service: string): Tracer {
  return trace.getTracer(`@relay/${service}`);
}
