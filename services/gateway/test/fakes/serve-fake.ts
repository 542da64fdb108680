/**
 * One fake owner service for the gateway's tests, built on its generated definition and served over real gRPC on
 * loopback port 0: the RPCs the tests need, each typed by the generated `…Server` interface; every other RPC of the
 * definition answers UNIMPLEMENTED (REMOTE_RELAY_UNSUPPORTED), so a fake lists only what a test calls.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';
import { AppError } from '@relay/errors';
import { serveStream, serveUnary, startGrpcServer, type GrpcServer, type ServiceIdentity, type StreamHandlers, type UnaryHandlers } from '@relay/rpc';
import type { Logger } from '@relay/telemetry';
import { callersFor } from '@relay/testing';
import { fakeCredentials } from '../fake-credentials.ts';

/** The RPCs a fake answers, by the generated server interface `S`: any subset of its unary and streaming methods. */
export interface FakeRpcs<S> {
  unary?: Partial<UnaryHandlers<S>>;
  stream?: Partial<StreamHandlers<S>>;
}

/** Starts the fake of `service`, called by the gateway, with `rpcs`; every other RPC of `definition` is unimplemented. */
export async function serveFake<S>(definition: ServiceDefinition, service: ServiceIdentity, logger: Logger, rpcs: FakeRpcs<S>): Promise<GrpcServer> {
  const unimplemented = Object.fromEntries(
    Object.entries(definition)
      .filter(([, method]) => !method.responseStream)
      .map(([name]) => [name, async () => Promise.reject(new AppError('REMOTE_RELAY_UNSUPPORTED', 'unimplemented', `${name} is not in the fake`))]),
  );
  return startGrpcServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    auth: fakeCredentials.auth(service),
    services: [
      {
        definition,
        callers: callersFor(definition, 'gateway'),
        implementation: {
          ...serveUnary<object>(logger, unimplemented),
          ...serveUnary<S>(logger, (rpcs.unary ?? {}) as UnaryHandlers<S>),
          ...serveStream<S>(logger, (rpcs.stream ?? {}) as StreamHandlers<S>),
        },
      },
    ],
  });
}
