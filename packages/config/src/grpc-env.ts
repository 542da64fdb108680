/**
 * How a service proves itself to the others on gRPC and checks who calls it (docs/adr/0015): mutual TLS when
 * GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY name its files (Kubernetes, cert-manager), else a secret token
 * of its own (one machine: `relay up` makes one per service at each start).
 */
import { z } from 'zod';

const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalFile = z.preprocess(
  blankAsUnset,
  z.string().startsWith('/', 'must be an absolute file path, for example /etc/relay/grpc-tls/tls.crt').optional(),
);

const KEY_ENTRY = /^([a-z]+):([0-9a-f]{64})$/;

/** `gateway:<hex>,session:<hex>,…`: each service's name and the hex SHA-256 digest of its token. */
const serviceKeys = z.string().transform((value, context) => {
  const keys: Record<string, string> = {};
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const match = KEY_ENTRY.exec(entry);
    if (!match) {
      context.addIssue({ code: 'custom', message: `"${entry.slice(0, 20)}…" must be <service>:<64 hex digits> (the SHA-256 digest of its token)` });
      return z.NEVER;
    }
    keys[match[1]!] = match[2]!;
  }
  return keys;
});

/** The variables of every service that calls or serves gRPC. */
export const grpcAuthEnv = {
  /** This service's own token, sent with each of its calls; never a key of another service. */
  RELAY_SERVICE_TOKEN: z.preprocess(blankAsUnset, z.string().min(32, 'must be at least 32 characters (relay up makes 43)').optional()),
  /** How this service checks its callers' tokens. */
  RELAY_SERVICE_KEYS: z.preprocess(blankAsUnset, serviceKeys.optional()),
  /** The CA certificate that signed every service's certificate. */
  GRPC_TLS_CA: optionalFile,
  /** This service's certificate (its DNS names start with the service's name) and key. */
  GRPC_TLS_CERT: optionalFile,
  GRPC_TLS_KEY: optionalFile,
};

/** The variables of a service that serves gRPC. */
export const grpcServerEnv = {
  ...grpcAuthEnv,
  /** The address the server binds: 127.0.0.1, so no other host reaches it; 0.0.0.0 in a pod, with mutual TLS. */
  GRPC_HOST: z.string().trim().min(1).default('127.0.0.1'),
  /** With mutual TLS: a plaintext port where only grpc.health.v1 answers, for the kubelet's gRPC probes. */
  GRPC_HEALTH_PORT: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).max(65535).optional()),
  /**
   * How long a connection to this server lives before it is recycled (GOAWAY), so callers find new replicas; 5
   * minutes unset. Tests set a few seconds to prove every wait re-attaches.
   */
  GRPC_MAX_CONNECTION_AGE_MS: z.preprocess(blankAsUnset, z.coerce.number().int().min(500).optional()),
  /** How long calls in flight on a recycled connection may go on before it is closed under them; unset, until they end. */
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: z.preprocess(blankAsUnset, z.coerce.number().int().min(0).optional()),
};

type GrpcAuthVariables = { [K in keyof typeof grpcAuthEnv]?: z.infer<(typeof grpcAuthEnv)[K]> } & { GRPC_HOST?: string };

const TLS_VARIABLES = ['GRPC_TLS_CA', 'GRPC_TLS_CERT', 'GRPC_TLS_KEY'] as const;

/**
 * The schema refinement that makes a service start only with credentials: the three TLS files, or its
 * token (and, for a service that serves, the keys of its callers). There is no anonymous mode.
 */
export function requireGrpcCredentials(serves: boolean) {
  return (config: GrpcAuthVariables, context: z.RefinementCtx): void => {
    const tls = TLS_VARIABLES.filter((name) => config[name] !== undefined);
    if (tls.length > 0) {
      for (const name of TLS_VARIABLES.filter((variable) => config[variable] === undefined)) {
        context.addIssue({ code: 'custom', path: [name], message: `required with ${tls.join(' and ')}: mutual TLS needs the CA, the certificate and its key` });
      }
      return;
    }
    if (config.GRPC_HOST !== undefined && !isLoopback(config.GRPC_HOST)) {
      context.addIssue({
        code: 'custom',
        path: ['GRPC_HOST'],
        message: `must be a loopback address such as 127.0.0.1 without mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY): service tokens must not cross a network in plaintext`,
      });
    }
    if (config.RELAY_SERVICE_TOKEN === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_SERVICE_TOKEN'],
        message:
          'required: the secret this service proves itself with on gRPC (relay up makes one), or GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY for mutual TLS',
      });
    }
    if (serves && config.RELAY_SERVICE_KEYS === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_SERVICE_KEYS'],
        message: 'required: gateway:<sha256 hex>,session:<sha256 hex>,… — how this service checks the tokens of the services that call it',
      });
    }
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
