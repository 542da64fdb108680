export { callDeadline } from './call-deadline.ts';
export { callStream, type StreamCallOptions, type StreamMethodName } from './call-stream.ts';
export { callUnary, type UnaryCallOptions, type UnaryMethodName } from './call-unary.ts';
export { checkHealth } from './check-health.ts';
export { createClient, targetOf, type ClientConstructor } from './create-client.ts';
export {
  grpcAuth,
  makeServiceCredentials,
  runnerTlsAuth,
  SERVICE_AUTH_METADATA_KEY,
  serviceAuth,
  serviceKey,
  type GrpcAuth,
  type GrpcAuthSettings,
  type ServiceCredentials,
} from './grpc-auth.ts';
export {
  CODE_METADATA_KEY,
  DEADLINE_CODE,
  DETAILS_METADATA_KEY,
  fromGrpcError,
  isTransportFailure,
  reattachDelayMs,
  retriedOnTransportFailure,
  STATUS_BY_KIND,
  toGrpcStatus,
  UNAVAILABLE_CODE,
} from './grpc-error.ts';
export { HealthStatuses } from './health.ts';
export { MAX_MESSAGE_BYTES } from './message-limits.ts';
export { DRY_RUN_HEADER, PROVENANCE_HEADERS, VERSION_HEADER } from './relay-link-headers.ts';
export { promiseClient, type PromiseClient, type PromiseClientOptions } from './promise-client.ts';
export { serveStream, type StreamHandler, type StreamHandlers } from './serve-stream.ts';
export { serveUnary, type UnaryHandler, type UnaryHandlers } from './serve-unary.ts';
export { isServiceIdentity, SERVICE_IDENTITIES, type Callers, type ServiceIdentity } from './service-identity.ts';
export { LIVENESS_SERVICE, serviceName, startGrpcServer, type GrpcServer, type GrpcServerOptions, type GrpcService } from './start-grpc-server.ts';
