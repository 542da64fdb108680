import { createHash, randomBytes } from 'node:crypto';
import { experimental } from '@grpc/grpc-js';
import { isServiceIdentity, SERVICE_IDENTITIES, type ServiceIdentity } from './service-identity.ts';

/** The metadata entry carrying `<service>:<token>` on a call between services that prove themselves by token. */
export const SERVICE_AUTH_METADATA_KEY = 'relay-service-auth';

/**
 * How this process proves which service it is on gRPC, and how it checks its callers.
 * - `token` (one machine): its own secret token, sent with every call, and the SHA-256 digest of every
 *   service's token, so it can check a caller's token without being able to send it.
 * - `tls` (Kubernetes): mutual TLS; its certificate names it (a DNS name whose first label is the service),
 *   and a caller is who its certificate, signed by the same CA, names.
 */
export type GrpcAuth =
  | { kind: 'token'; service: ServiceIdentity; token: string; keys: ReadonlyMap<ServiceIdentity, Buffer> }
  | { kind: 'tls'; service: ServiceIdentity | ServerOnlyIdentity; certificates: experimental.CertificateProvider; files: CertificateFiles };

/**
 * A server that calls nothing and that no caller check knows: the command runner's tls side (docs/adr/0031). Its
 * certificate is for serving only.
 */
type ServerOnlyIdentity = 'runner';

/** Where the CA, the service's certificate and its key are read from (cert-manager's secret, mounted). */
type CertificateFiles = { ca: string; cert: string; key: string };

/** The service-credential variables of a service's environment, as its config parsed them. */
export interface GrpcAuthSettings {
  RELAY_SERVICE_TOKEN?: string | undefined;
  /** Service name → hex SHA-256 digest of its token. */
  RELAY_SERVICE_KEYS?: Readonly<Record<string, string>> | undefined;
  GRPC_TLS_CA?: string | undefined;
  GRPC_TLS_CERT?: string | undefined;
  GRPC_TLS_KEY?: string | undefined;
}

/** How often the certificate files are read again: cert-manager renews them in place. */
const CERTIFICATE_REFRESH_MS = 60_000;

/** The service's credentials from its config: mutual TLS when the certificate files are named, else its token. */
export function grpcAuth(service: ServiceIdentity, settings: GrpcAuthSettings): GrpcAuth {
  const { GRPC_TLS_CA: ca, GRPC_TLS_CERT: cert, GRPC_TLS_KEY: key } = settings;
  if (ca !== undefined && cert !== undefined && key !== undefined) return tlsAuth(service, { ca, cert, key });
  const token = settings.RELAY_SERVICE_TOKEN;
  // The configs refuse such an environment first; this guards the other callers.
  if (token === undefined) throw new Error(`the ${service} service has neither GRPC_TLS_CA/CERT/KEY nor RELAY_SERVICE_TOKEN`);
  return { kind: 'token', service, token, keys: parseServiceKeys(settings.RELAY_SERVICE_KEYS ?? {}) };
}

/**
 * The command runner's mutual TLS (its tls side): it serves with its own certificate and checks each caller's as the
 * services do (startGrpcServer's caller check), and it calls nothing.
 */
export function runnerTlsAuth(files: CertificateFiles): GrpcAuth {
  return tlsAuth('runner', files);
}

function tlsAuth(service: ServiceIdentity | ServerOnlyIdentity, files: CertificateFiles): GrpcAuth {
  const certificates = new experimental.FileWatcherCertificateProvider({
    caCertificateFile: files.ca,
    certificateFile: files.cert,
    privateKeyFile: files.key,
    refreshIntervalMs: CERTIFICATE_REFRESH_MS,
  });
  return { kind: 'tls', service, certificates, files };
}

/**
 * Resolves once the certificate files have been read; grpc-js reads them in the background, and until then a server
 * drops every TLS connection (while its plaintext health port already answers). Rejects, naming the files, when they
 * cannot be read.
 */
export function certificatesRead(auth: Extract<GrpcAuth, { kind: 'tls' }>): Promise<void> {
  const { certificates, files } = auth;
  return new Promise((resolve, reject) => {
    const read: { ca?: boolean; identity?: boolean } = {};
    const settle = () => {
      if (read.ca === undefined || read.identity === undefined) return;
      certificates.removeCaCertificateListener(onCa);
      certificates.removeIdentityCertificateListener(onIdentity);
      if (read.ca && read.identity) resolve();
      else reject(new Error(`cannot read the TLS files GRPC_TLS_CA (${files.ca}), GRPC_TLS_CERT (${files.cert}) and GRPC_TLS_KEY (${files.key})`));
    };
    const onCa = (update: experimental.CaCertificateUpdate | null) => {
      read.ca = update !== null;
      settle();
    };
    const onIdentity = (update: experimental.IdentityCertificateUpdate | null) => {
      read.identity = update !== null;
      settle();
    };
    certificates.addCaCertificateListener(onCa);
    certificates.addIdentityCertificateListener(onIdentity);
  });
}

function parseServiceKeys(keys: Readonly<Record<string, string>>): ReadonlyMap<ServiceIdentity, Buffer> {
  const parsed = new Map<ServiceIdentity, Buffer>();
  for (const [service, digest] of Object.entries(keys)) {
    if (isServiceIdentity(service)) parsed.set(service, Buffer.from(digest, 'hex'));
  }
  return parsed;
}

/** The hex SHA-256 digest of a service token, as RELAY_SERVICE_KEYS lists it. */
export function serviceKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A fresh set of service tokens for one relay, and the RELAY_SERVICE_KEYS value that checks them. */
export interface ServiceCredentials {
  tokens: Readonly<Record<ServiceIdentity, string>>;
  /** `gateway:<hex>,session:<hex>,…`. */
  keys: string;
}

/** The token credentials of `service` in a set made by makeServiceCredentials (for whoever made the set). */
export function serviceAuth(credentials: ServiceCredentials, service: ServiceIdentity): GrpcAuth {
  const keys = Object.fromEntries(credentials.keys.split(',').map((entry) => entry.split(':') as [string, string]));
  return grpcAuth(service, { RELAY_SERVICE_TOKEN: credentials.tokens[service], RELAY_SERVICE_KEYS: keys });
}

/** Makes a credential set, as whoever starts the services together does at each start. */
export function makeServiceCredentials(): ServiceCredentials {
  const tokens = Object.fromEntries(SERVICE_IDENTITIES.map((service) => [service, randomBytes(32).toString('base64url')])) as Record<ServiceIdentity, string>;
  const keys = SERVICE_IDENTITIES.map((service) => `${service}:${serviceKey(tokens[service])}`).join(',');
  return { tokens, keys };
}
