import type { Client } from '@grpc/grpc-js';
import { callStream, type StreamCallOptions } from './call-stream.ts';
import { callUnary, type UnaryCallOptions } from './call-unary.ts';

/** One method of a generated service definition (`SessionServiceService.readSession` and the like). */
interface MethodDefinition<Req, Res> {
  readonly path: string;
  readonly responseStream: boolean;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => Res;
}

type ServiceDefinition = Record<string, MethodDefinition<never, unknown>>;

/**
 * A service's methods as promises over its generated message types: a unary method answers its response, a
 * server-streaming one yields its messages. Failures reject with the AppErrors of callUnary and callStream.
 */
export type PromiseClient<D> = {
  readonly [K in keyof D]: D[K] extends {
    responseStream: true;
    requestSerialize: (value: infer Req) => Buffer;
    responseDeserialize: (bytes: Buffer) => infer Res;
  }
    ? (request: Req, options?: StreamCallOptions) => AsyncGenerator<Res>
    : D[K] extends { requestSerialize: (value: infer Req) => Buffer; responseDeserialize: (bytes: Buffer) => infer Res }
      ? (request: Req, options?: UnaryCallOptions) => Promise<Res>
      : never;
};

export interface PromiseClientOptions {
  /** Every unary call's deadline unless the call gives its own; streams have none unless they give one. */
  deadlineMs: number;
}

/**
 * `client` (made by createClient from the same service's generated client class, so it keeps its credentials,
 * balancing and tracing) as a PromiseClient of `definition` (the generated `…ServiceService`).
 */
export function promiseClient<D extends ServiceDefinition>(definition: D, client: Client, options: PromiseClientOptions): PromiseClient<D> {
  const methods = Object.entries(definition).map(([name, method]) => [
    name,
    method.responseStream
      ? (request: unknown, callOptions?: StreamCallOptions) => callStream(client, name, request, callOptions)
      : (request: unknown, callOptions?: UnaryCallOptions) => callUnary(client, name, request, { deadlineMs: options.deadlineMs, ...callOptions }),
  ]);
  return Object.fromEntries(methods) as PromiseClient<D>;
}
