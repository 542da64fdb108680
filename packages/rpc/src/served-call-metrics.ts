import { status, type StatusObject } from '@grpc/grpc-js';
import type { Attributes } from '@opentelemetry/api';
import { Attr, histogram, instruments, Metric, RpcAttr, secondsSince } from '@relay/telemetry';
import { CODE_METADATA_KEY } from './grpc-error.ts';

// @opentelemetry/instrumentation-grpc 0.223 traces calls but records no metrics, so the choke point every relay
// service serves through measures them.
const rpcInstruments = instruments('rpc', (meter) => ({ duration: histogram(meter, Metric.RPC_SERVER_CALL_DURATION) }));

/**
 * The attributes of one served call: the method without its leading slash, the gRPC status by name and,
 * on a failure, the AppError code the caller receives (the error part of RED, by code).
 */
export function servedCallAttributes(path: string, outcome: status | StatusObject): Attributes {
  const code = typeof outcome === 'number' ? outcome : outcome.code;
  const errorCode = typeof outcome === 'number' ? undefined : outcome.metadata.get(CODE_METADATA_KEY)[0];
  return {
    [RpcAttr.SYSTEM_NAME]: 'grpc',
    [RpcAttr.METHOD]: path.replace(/^\//, ''),
    [RpcAttr.RESPONSE_STATUS_CODE]: status[code] ?? String(code),
    ...(typeof errorCode === 'string' ? { [Attr.ERROR_CODE]: errorCode } : {}),
  };
}

/** Records one served call in `rpc.server.call.duration` (a no-op when metrics are off). */
export function recordServedCall(path: string, startedAt: number, outcome: status | StatusObject): void {
  rpcInstruments().duration.record(secondsSince(startedAt), servedCallAttributes(path, outcome));
}
