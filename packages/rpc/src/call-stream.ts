import { Metadata, type CallOptions, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { fromGrpcError } from './grpc-error.ts';

export interface StreamCallOptions {
  /** Fails the call with DEADLINE_EXCEEDED after this long. */
  deadlineMs?: number;
  metadata?: Metadata;
  /** Cancels the call; the iteration then ends without an error. */
  signal?: AbortSignal;
}

type StreamMethod<Req, Res> = (request: Req, metadata: Metadata, options: Partial<CallOptions>) => ClientReadableStream<Res>;

/** The names of a generated client's server-streaming methods. */
export type StreamMethodName<C> = {
  [K in keyof C]: C[K] extends StreamMethod<infer _Req, infer _Res> ? K : never;
}[keyof C] &
  string;
type RequestOf<F> = F extends StreamMethod<infer Req, infer _Res> ? Req : never;
type ResponseOf<F> = F extends StreamMethod<infer _Req, infer Res> ? Res : never;

/** Calls a server-streaming method and yields its responses; a failure throws the same AppErrors as callUnary. */
export function callStream<C extends Client, M extends StreamMethodName<C>>(
  client: C,
  method: M,
  request: RequestOf<C[M]>,
  options?: StreamCallOptions,
): AsyncGenerator<ResponseOf<C[M]>>;
export function callStream<Res>(client: Client, method: string, request: unknown, options?: StreamCallOptions): AsyncGenerator<Res>;
export async function* callStream(client: Client, method: string, request: unknown, options: StreamCallOptions = {}): AsyncGenerator<unknown> {
  const fn = (client as unknown as Record<string, StreamMethod<unknown, unknown> | undefined>)[method];
  if (typeof fn !== 'function') throw new Error(`the client has no method ${method}`);
  const callOptions: Partial<CallOptions> = options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs };
  const call = fn.call(client, request, options.metadata ?? new Metadata(), callOptions);
  const cancel = (): void => call.cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for await (const response of call) yield response;
  } catch (error) {
    if (options.signal?.aborted) return;
    throw fromGrpcError(error as ServiceError);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    // Leaving the loop early (break, return) must not leave the call open on the server.
    call.cancel();
  }
}
