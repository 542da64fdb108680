/**
 * gRPC's health service (grpc.health.v1) on a relay server, from the protocol's own .proto (proto/grpc/health/v1),
 * generated like every other contract. `grpc-health-check` served it before, parsing that .proto with protobufjs at
 * every service's start: ~0.1 s of CPU and ~6 MB per process.
 *
 * Check answers a service's status, NOT_FOUND for one the server does not know ('' is the whole server); Watch sends
 * the status at once (SERVICE_UNKNOWN for an unknown service) and again whenever it changes; List gives them all.
 */
import { status as grpcStatus, type Server, type ServerWritableStream } from '@grpc/grpc-js';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthService,
  type HealthCheckRequest,
  type HealthCheckResponse,
  type HealthServer,
} from '@relay/proto/grpc/health/v1/health';

type Watch = ServerWritableStream<HealthCheckRequest, HealthCheckResponse>;

export class HealthStatuses {
  readonly #statuses: Map<string, ServingStatus>;
  readonly #watches = new Map<string, Set<Watch>>();

  /** Every one of `services` starts with `status`. */
  constructor(services: readonly string[], status: ServingStatus) {
    this.#statuses = new Map(services.map((service) => [service, status]));
  }

  /** Sets the status of every service it was made with and tells their watches. */
  setAll(status: ServingStatus): void {
    this.set([...this.#statuses.keys()], status);
  }

  /** Sets the status of `services` (of those it was made with) and tells their watches. */
  set(services: readonly string[], status: ServingStatus): void {
    for (const service of services.filter((name) => this.#statuses.has(name))) {
      this.#statuses.set(service, status);
      for (const watch of this.#watches.get(service) ?? []) watch.write({ status });
    }
  }

  /** Ends every watch (they would otherwise keep a server's graceful shutdown waiting for them). */
  endWatches(): void {
    for (const watches of this.#watches.values()) for (const watch of watches) watch.end();
    this.#watches.clear();
  }

  addTo(server: Server): void {
    const implementation: HealthServer = {
      check: ({ request }, callback) => {
        const status = this.#statuses.get(request.service);
        if (status === undefined) callback({ code: grpcStatus.NOT_FOUND, details: `no health status for service '${request.service}'` });
        else callback(null, { status });
      },
      watch: (call) => {
        const { service } = call.request;
        const watches = this.#watches.get(service) ?? new Set<Watch>();
        this.#watches.set(service, watches.add(call));
        call.on('cancelled', () => watches.delete(call));
        call.write({ status: this.#statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN });
      },
      list: (_call, callback) => {
        callback(null, { statuses: Object.fromEntries([...this.#statuses].map(([service, status]) => [service, { status }])) });
      },
    };
    server.addService(HealthService, implementation);
  }
}
