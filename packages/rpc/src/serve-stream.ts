import { status, type handleServerStreamingCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from '@relay/telemetry';
import { once } from 'node:events';
import { recordServedCall } from './served-call-metrics.ts';
import { reportFailure } from './serve-unary.ts';

/**
 * A server-streaming method as a use case sees it: yields responses until done; `signal` aborts when
 * the client cancels or its deadline passes, so long waits can stop early.
 */
export type StreamHandler<Req, Res> = (request: Req, signal: AbortSignal, call: ServerWritableStream<Req, Res>) => AsyncIterable<Res>;

/** The async-iterable handlers for the server-streaming methods of a generated `…Server` interface (its unary methods are left out). */
export type StreamHandlers<S> = {
  [
    K in keyof S as string extends K ? never : S[K] extends handleServerStreamingCall<infer _Req, infer _Res> ? K : never
  ]: S[K] extends handleServerStreamingCall<infer Req, infer Res> ? StreamHandler<Req, Res> : never;
};

/**
 * Adapts async-iterable handlers to grpc-js server streams, with the same error mapping as
 * serveUnary, measured the same way (a stream's duration is its whole life; one the client cancels counts
 * as CANCELLED). Merge the result with serveUnary's for a service that has both kinds of methods.
 */
export function serveStream<S>(logger: Logger, implementation: StreamHandlers<S>): UntypedServiceImplementation {
  const served: UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(implementation) as [string, StreamHandler<unknown, unknown>][]) {
    served[method] = (call: ServerWritableStream<unknown, unknown>) => {
      const startedAt = performance.now();
      const abort = new AbortController();
      call.once('cancelled', () => abort.abort());
      pump(() => handler(call.request, abort.signal, call), call, abort.signal).then(
        () => {
          recordServedCall(call.getPath(), startedAt, abort.signal.aborted ? status.CANCELLED : status.OK);
          if (!abort.signal.aborted) call.end();
        },
        (error: unknown) => {
          if (abort.signal.aborted) {
            recordServedCall(call.getPath(), startedAt, status.CANCELLED);
            return;
          }
          const failure = reportFailure(logger, call.getPath(), error);
          recordServedCall(call.getPath(), startedAt, failure);
          call.emit('error', failure);
        },
      );
    };
  }
  return served;
}

async function pump(responses: () => AsyncIterable<unknown>, call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  for await (const response of responses()) {
    if (signal.aborted) return;
    // Respect backpressure: a slow client must not make the server buffer without bound.
    if (!call.write(response)) await once(call, 'drain', { signal });
  }
}
