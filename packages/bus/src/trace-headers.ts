import type { TextMapGetter } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';

/** The W3C trace-context headers the outbox stores and the bus carries. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/** Reads trace context out of NATS message headers for `propagation.extract`. */
export const natsHeaderGetter: TextMapGetter<MsgHdrs> = {
  keys: (carrier) => carrier.keys(),
  get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
};
