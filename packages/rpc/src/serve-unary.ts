import { status, type handleUnaryCall, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { isAppError, refusalBehind } from '@relay/errors';
import { annotateActiveSpan, Attr, type Logger } from '@relay/telemetry';
import { withCallDeadline } from './call-deadline.ts';
import { CODE_METADATA_KEY, toGrpcStatus } from './grpc-error.ts';
import { recordServedCall } from './served-call-metrics.ts';

/** A unary method as a use case sees it: a request in, a response or a thrown error out. */
export type UnaryHandler<Req, Res> = (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>;

/** The promise-returning handlers for the unary methods of a generated `…Server` interface (its streaming methods are left out). */
export type UnaryHandlers<S> = {
  [K in keyof S as string extends K ? never : S[K] extends handleUnaryCall<infer _Req, infer _Res> ? K : never]: S[K] extends handleUnaryCall<
    infer Req,
    infer Res
  >
    ? UnaryHandler<Req, Res>
    : never;
};

/**
 * Adapts promise handlers to grpc-js: an AppError becomes its gRPC status with `relay-code` and
 * `relay-details` metadata; anything else becomes INTERNAL / REMOTE_RELAY_INTERNAL, logged with its stack.
 * Every call is measured in `rpc.server.call.duration`, and its handler's work knows the call's deadline
 * (callDeadline).
 */
export function serveUnary<S>(logger: Logger, implementation: UnaryHandlers<S>): UntypedServiceImplementation {
  const served: UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(implementation) as [string, UnaryHandler<unknown, unknown>][]) {
    served[method] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const startedAt = performance.now();
      // Through a promise so that a handler throwing synchronously is mapped like one that rejects.
      withCallDeadline(call.getDeadline(), () => Promise.resolve(call.request).then((request) => handler(request, call))).then(
        (response) => {
          recordServedCall(call.getPath(), startedAt, status.OK);
          callback(null, response);
        },
        (error: unknown) => {
          const failure = reportFailure(logger, call.getPath(), error);
          recordServedCall(call.getPath(), startedAt, failure);
          callback(failure);
        },
      );
    };
  }
  return served;
}

/** Logs a handler's failure and records it on the active (server) span; returns the status to send. */
export function reportFailure(logger: Logger, path: string, thrown: unknown): ReturnType<typeof toGrpcStatus> {
  const error = refusalBehind(thrown);
  const grpcStatus = toGrpcStatus(error);
  annotateActiveSpan({ [Attr.ERROR_CODE]: String(grpcStatus.metadata.get(CODE_METADATA_KEY)[0]) });
  // Refusals are part of normal operation; only faults deserve an error line.
  if (isAppError(error) && error.kind !== 'internal') logger.debug({ path, code: error.code, kind: error.kind }, 'rpc refused');
  else logger.error({ path, err: error }, 'rpc failed');
  return grpcStatus;
}
