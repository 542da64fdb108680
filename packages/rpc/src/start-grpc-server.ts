import { experimental, Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from '@relay/telemetry';
import { callerCheck, type CallerTable } from './caller-check.ts';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '@relay/proto/grpc/health/v1/health';
import { HealthStatuses } from './health.ts';
import { certificatesRead, type GrpcAuth } from './grpc-auth.ts';
import { MESSAGE_LIMITS } from './message-limits.ts';
import { WITHOUT_CHANNELZ } from './channelz.ts';
import type { Callers, ServiceIdentity } from './service-identity.ts';

export interface GrpcService<D extends ServiceDefinition = ServiceDefinition> {
  definition: D;
  implementation: UntypedServiceImplementation;
  /** Who may call each of its methods; every method must be listed. */
  callers: Callers<D>;
}

export interface GrpcServerOptions {
  /** 0 picks a free port; the bound one is returned. */
  port: number;
  /**
   * Defaults to 127.0.0.1: on one machine no other host may reach the services. 0.0.0.0 only where other
   * hosts must (pods, with mutual TLS).
   */
  host?: string;
  services: GrpcService[];
  /** How callers are identified (and, with TLS, how this server proves itself). */
  auth: GrpcAuth;
  /**
   * Also listen here in plaintext, for probes that cannot speak TLS (the kubelet's gRPC probes): only
   * grpc.health.v1 answers there, every other call lacks a client certificate and is refused.
   */
  healthPort?: number;
  logger: Logger;
  /** How long in-flight calls may finish on shutdown before they are cancelled; default 5000. */
  shutdownTimeoutMs?: number;
  /** Each connection is recycled (GOAWAY) after about this long; default 5 minutes (CONNECTION_AGE_MS says why). */
  maxConnectionAgeMs?: number;
  /**
   * After a recycle, calls still in flight on the old connection may go on this long before the connection is
   * closed under them; unset, they go on until they end.
   */
  maxConnectionAgeGraceMs?: number;
}

export interface GrpcServer {
  port: number;
  /** The plaintext health port, when one was asked for. */
  healthPort?: number;
  /**
   * Reports NOT_SERVING and goes on serving: readiness drops, so new callers go to other replicas, while the
   * work this replica still finishes (a running turn's own calls) is answered. shutdown() follows.
   */
  drain(): void;
  /** Reports NOT_SERVING, lets in-flight calls finish (up to the timeout), then cancels the rest. */
  shutdown(): Promise<void>;
}

/**
 * Clients balance over the replicas DNS named when they connected; a replica added later would take no calls
 * until a connection drops. So each connection is closed (GOAWAY) after ~5 minutes: the client asks DNS again
 * and connects to every replica there is then. Shorter would re-resolve and re-handshake (TLS) more for no gain at
 * a rollout's pace; longer leaves a new replica idle longer. Nothing waits on a connection: a call that waits for a
 * person (AwaitCard, Wait) re-attaches when its connection goes (docs/adr/0030-waits-re-attach.md), so tests set
 * a few seconds (GRPC_MAX_CONNECTION_AGE_MS) to recycle under waiting cards.
 */
export const CONNECTION_AGE_MS = 5 * 60_000;

/**
 * The grpc.health.v1 "service" a liveness probe asks for: SERVING from the start until the shutdown, draining
 * included. Readiness asks for '' (the whole server), which a draining replica turns off so that callers leave it
 * while it finishes its work; a liveness probe on '' would have the kubelet kill it for that mid-drain.
 */
export const LIVENESS_SERVICE = 'liveness';

/**
 * Starts a gRPC server with the given services and grpc.health.v1, SERVING for '' and each service's full name (off
 * while draining) and for LIVENESS_SERVICE (off only at shutdown).
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const { logger } = options;
  const names = ['', ...options.services.map((service) => serviceName(service.definition))];
  const health = new HealthStatuses([...names, LIVENESS_SERVICE], ServingStatus.NOT_SERVING);
  const connectionAge = {
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? CONNECTION_AGE_MS,
    ...(options.maxConnectionAgeGraceMs === undefined ? {} : { 'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs }),
  };
  const server = new Server({
    ...MESSAGE_LIMITS,
    ...WITHOUT_CHANNELZ,
    ...connectionAge,
    interceptors: [callerCheck(options.auth, callerTable(options.services))],
  });
  for (const service of options.services) server.addService(service.definition, service.implementation);
  health.addTo(server);

  // A server whose certificates are not read yet drops every TLS connection: serve only once they are.
  if (options.auth.kind === 'tls') await certificatesRead(options.auth);
  const host = options.host ?? '127.0.0.1';
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const port = await bind(server, `${hostPart}:${options.port}`, serverCredentials(options.auth));
  const healthPort = options.healthPort === undefined ? undefined : await bind(server, `${hostPart}:${options.healthPort}`, ServerCredentials.createInsecure());
  health.setAll(ServingStatus.SERVING);
  logger.info({ host, port, healthPort, services: names.filter(Boolean), callers: options.auth.kind }, 'grpc server listening');

  let stopped: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopped ??= stop(server, health, options.shutdownTimeoutMs ?? 5000, logger);
    return stopped;
  };
  const drain = (): void => health.set(names, ServingStatus.NOT_SERVING);
  return { port, ...(healthPort === undefined ? {} : { healthPort }), drain, shutdown };
}

function bind(server: Server, address: string, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(address, credentials, (error, bound) => (error ? reject(error) : resolve(bound))));
}

/**
 * With TLS, a client without a certificate the CA signed still completes the handshake, so that the caller
 * check answers it UNAUTHENTICATED instead of a bare connection failure.
 */
function serverCredentials(auth: GrpcAuth): ServerCredentials {
  if (auth.kind === 'token') return ServerCredentials.createInsecure();
  return experimental.createCertificateProviderServerCredentials(auth.certificates, auth.certificates, false);
}

function callerTable(services: GrpcService[]): CallerTable {
  const table = new Map<string, readonly ServiceIdentity[]>();
  for (const { definition, callers } of services) {
    const unlisted = Object.keys(definition).filter((method) => !(method in callers));
    if (unlisted.length > 0) throw new Error(`${serviceName(definition)} lists no callers for ${unlisted.join(', ')}`);
    for (const [method, { path }] of Object.entries(definition)) table.set(path, callers[method] ?? []);
  }
  return table;
}

async function stop(server: Server, health: HealthStatuses, timeoutMs: number, logger: Logger): Promise<void> {
  health.setAll(ServingStatus.NOT_SERVING);
  health.endWatches();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'grpc calls still running at shutdown, cancelling them');
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  logger.info('grpc server stopped');
}

/** `relay.session.v1.SessionService` from a generated definition's method paths (`/<service>/<Method>`). */
export function serviceName(definition: ServiceDefinition): string {
  const first = Object.values(definition)[0];
  if (!first) throw new Error('a gRPC service definition has no methods');
  return first.path.split('/')[1] ?? '';
}
