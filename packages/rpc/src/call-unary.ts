import { Metadata, type CallOptions, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { callDeadline } from './call-deadline.ts';
import { fromGrpcError } from './grpc-error.ts';

export interface UnaryCallOptions {
  /**
   * Fails the call with DEADLINE_EXCEEDED after this long. Made by a handler's work, the call also has no later
   * deadline than the call being served (callDeadline): gRPC's deadline propagation, so the service called gives up
   * its waits when the first caller gives up, not later.
   */
  deadlineMs?: number;
  metadata?: Metadata;
  /**
   * Waits (within the deadline) for a connection to the service instead of failing at once while the channel is
   * between reconnects: a service that was down a moment ago, or a channel another call found down, answers as soon
   * as it is back.
   */
  waitForReady?: boolean;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** The names of a generated client's unary methods. */
export type UnaryMethodName<C> = {
  [K in keyof C]: C[K] extends UnaryMethod<infer _Req, infer _Res> ? K : never;
}[keyof C] &
  string;
type RequestOf<F> = F extends UnaryMethod<infer Req, infer _Res> ? Req : never;
type ResponseOf<F> = F extends UnaryMethod<infer _Req, infer Res> ? Res : never;

/**
 * Calls a unary method and returns its response; a failure rejects with an AppError carrying the
 * server's code, kind and details (SERVICE_UNAVAILABLE when the service could not be reached).
 */
export function callUnary<C extends Client, M extends UnaryMethodName<C>>(
  client: C,
  method: M,
  request: RequestOf<C[M]>,
  options?: UnaryCallOptions,
): Promise<ResponseOf<C[M]>>;
export function callUnary<Req, Res>(client: Client, method: string, request: Req, options?: UnaryCallOptions): Promise<Res>;
export function callUnary(client: Client, method: string, request: unknown, options: UnaryCallOptions = {}): Promise<unknown> {
  const fn = (client as unknown as Record<string, UnaryMethod<unknown, unknown> | undefined>)[method];
  if (typeof fn !== 'function') return Promise.reject(new Error(`the client has no method ${method}`));
  const deadline = earliest(options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs, callDeadline());
  const callOptions: Partial<CallOptions> = deadline === undefined ? {} : { deadline };
  const metadata = options.metadata ?? new Metadata();
  if (options.waitForReady === true) metadata.setOptions({ waitForReady: true });
  return new Promise((resolve, reject) => {
    fn.call(client, request, metadata, callOptions, (error, response) => {
      if (error) reject(fromGrpcError(error));
      else resolve(response);
    });
  });
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
