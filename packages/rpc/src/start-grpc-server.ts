import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from '@relay/telemetry';
import { HealthImplementation } from 'grpc-health-check';

export interface GrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerOptions {
  /** 0 picks a free port; the bound one is returned. */
  port: number;
  /** Defaults to 0.0.0.0 (all IPv4 interfaces). */
  host?: string;
  services: GrpcService[];
  logger: Logger;
  /** How long in-flight calls may finish on shutdown before they are cancelled; default 5000. */
  shutdownTimeoutMs?: number;
}

export interface GrpcServer {
  port: number;
  /** Reports NOT_SERVING, lets in-flight calls finish (up to the timeout), then cancels the rest. */
  shutdown(): Promise<void>;
}

/** Starts a gRPC server with the given services and grpc.health.v1, SERVING for '' and each service's full name. */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const { logger } = options;
  const names = ['', ...options.services.map((service) => serviceName(service.definition))];
  const health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, 'NOT_SERVING' as const])));
  const server = new Server();
  for (const service of options.services) server.addService(service.definition, service.implementation);
  health.addToServer(server);

  const host = options.host ?? '0.0.0.0';
  const address = `${host.includes(':') ? `[${host}]` : host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  for (const name of names) health.setStatus(name, 'SERVING');
  logger.info({ host, port, services: names.filter(Boolean) }, 'grpc server listening');

  let stopped: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopped ??= stop(server, health, names, options.shutdownTimeoutMs ?? 5000, logger);
    return stopped;
  };
  return { port, shutdown };
}

async function stop(server: Server, health: HealthImplementation, names: string[], timeoutMs: number, logger: Logger): Promise<void> {
  for (const name of names) health.setStatus(name, 'NOT_SERVING');
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
