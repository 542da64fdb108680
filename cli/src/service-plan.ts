import type { ServiceCredentials } from '@relay/rpc';

/** The six services `relay up` runs, in the order they start; the gateway comes last and stops first. */
export const SERVICE_NAMES = ['session', 'subscription', 'scheduler', 'question', 'pairing', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export type GrpcServiceName = Exclude<ServiceName, 'gateway'>;

export const GRPC_SERVICE_NAMES = SERVICE_NAMES.filter((name): name is GrpcServiceName => name !== 'gateway');

export const DEFAULT_GRPC_PORTS: Record<GrpcServiceName, number> = {
  session: 50051,
  subscription: 50052,
  scheduler: 50053,
  question: 50054,
  pairing: 50055,
};

export const DEFAULT_GATEWAY_PORT = 7420;

/** Each stateful service's own database on the shared server. */
export const SERVICE_DATABASES: Record<GrpcServiceName, string> = {
  session: 'relay_session',
  subscription: 'relay_subscription',
  scheduler: 'relay_scheduler',
  question: 'relay_question',
  pairing: 'relay_pairing',
};

const ADDRESS_VARIABLES: Record<GrpcServiceName, string> = {
  session: 'SESSION_GRPC_ADDR',
  subscription: 'SUBSCRIPTION_GRPC_ADDR',
  scheduler: 'SCHEDULER_GRPC_ADDR',
  question: 'QUESTION_GRPC_ADDR',
  pairing: 'PAIRING_GRPC_ADDR',
};

export type ServicePlanInput = {
  /** Each service's gRPC port, one per replica (`relay up --replicas`); the first is the service's own default. */
  grpcPorts: Record<GrpcServiceName, readonly number[]>;
  gatewayPort: number;
  /** The address the gateway binds. */
  gatewayHost: string;
  /** How other relays and clients reach this relay (RELAY_PUBLIC_URL). */
  publicUrl: string;
  natsUrl: string;
  databaseServerUrl: string;
  relayName: string;
  agentSessions: 'on' | 'off';
  logLevel: string;
  clockEpochMs: number;
  /** RELAY_CLOCK as the user gave it; unset means the system clock. */
  clockSpec?: string;
  /** The gRPC credentials made at this start: each service gets only its own token, and every service's key. */
  serviceCredentials: ServiceCredentials;
  /** The NATS password of each service's own user on the relay's nats-server; unset for a NATS_URL of the user's. */
  natsPasswords?: Readonly<Record<GrpcServiceName, string>> | undefined;
};

/** The same server URL with another database name; credentials, host and query stay as they were. */
export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/**
 * A service's gRPC address as the other services and the CLI dial it: `127.0.0.1:<port>` for one replica, gRPC's
 * `ipv4:` target listing every replica for several (createClient balances round robin over them).
 */
export function grpcAddress(ports: number | readonly number[]): string {
  const list = typeof ports === 'number' ? [ports] : ports;
  return list.length === 1 ? `127.0.0.1:${list[0]}` : `ipv4:${list.map((port) => `127.0.0.1:${port}`).join(',')}`;
}

/** How `relay up` names replica `index` (from 0) of a service: `session`, `session-2`, `session-3` … */
export function replicaName(service: ServiceName, index: number): string {
  return index === 0 ? service : `${service}-${index + 1}`;
}

/** The services `relay up` runs several of (`--replicas`): every one but the gateway, which holds the relay's one port. */
export type Replicas = Partial<Record<GrpcServiceName, number>>;

/** At most this many of a service: each replica is a process with its own connection pools. */
export const MAX_REPLICAS = 8;

/**
 * The relay's variables for one service (replica `replica`, from 0, of a service with several); the caller lays them
 * over the inherited environment.
 */
export function serviceEnv(name: ServiceName, input: ServicePlanInput, replica = 0): Record<string, string> {
  const env: Record<string, string> = {
    NATS_URL: input.natsUrl,
    RELAY_NAME: input.relayName,
    RELAY_PUBLIC_URL: input.publicUrl,
    LOG_LEVEL: input.logLevel,
    OTEL_SERVICE_NAME: `relay-${name}`,
    RELAY_CLOCK_EPOCH: String(input.clockEpochMs),
  };
  if (input.clockSpec !== undefined) env['RELAY_CLOCK'] = input.clockSpec;
  env['RELAY_SERVICE_TOKEN'] = input.serviceCredentials.tokens[name];
  for (const other of GRPC_SERVICE_NAMES) env[ADDRESS_VARIABLES[other]] = grpcAddress(input.grpcPorts[other]);
  if (name === 'gateway') {
    env['PORT'] = String(input.gatewayPort);
    env['HOST'] = input.gatewayHost;
  } else {
    const port = input.grpcPorts[name][replica];
    if (port === undefined) throw new Error(`no port for replica ${replica + 1} of the ${name} service`);
    env['GRPC_PORT'] = String(port);
    // Loopback only: the tokens travel in plaintext, so no other host may reach the services.
    env['GRPC_HOST'] = '127.0.0.1';
    env['RELAY_SERVICE_KEYS'] = input.serviceCredentials.keys;
    if (input.natsPasswords !== undefined) {
      env['NATS_USER'] = name;
      env['NATS_PASSWORD'] = input.natsPasswords[name];
    }
    env['DATABASE_URL'] = databaseUrlFor(input.databaseServerUrl, SERVICE_DATABASES[name]);
  }
  if (name === 'session') {
    env['RELAY_AGENT_SESSIONS'] = input.agentSessions;
    // Hosted agents reach relay_tool through the gateway's MCP endpoint, like any other client.
    env['RELAY_GATEWAY_URL'] = `http://127.0.0.1:${input.gatewayPort}`;
  }
  return env;
}
