import { timingSafeEqual } from 'node:crypto';
import { ServerInterceptingCall, type Metadata, type ServerInterceptingCallInterface, type ServerInterceptor, type StatusObject } from '@grpc/grpc-js';
import { appError } from '@relay/errors';
import { SERVICE_AUTH_METADATA_KEY, serviceKey, type GrpcAuth } from './grpc-auth.ts';
import { toGrpcStatus } from './grpc-error.ts';
import { isServiceIdentity, type ServiceIdentity } from './service-identity.ts';

/** Health checks come from probes and readiness waits that hold no service credential. */
const OPEN_PREFIX = '/grpc.health.v1.Health/';

type AuthContext = ReturnType<ServerInterceptingCallInterface['getAuthContext']>;

/** Full method path (`/relay.session.v1.SessionService/CreateUser`) → the services allowed to call it. */
export type CallerTable = ReadonlyMap<string, readonly ServiceIdentity[]>;

/**
 * The server interceptor that checks every call before its handler runs: a caller that cannot be identified
 * gets UNAUTHENTICATED (REMOTE_RELAY_AUTH), a known service the method does not list PERMISSION_DENIED
 * (REMOTE_RELAY_FORBIDDEN).
 */
export function callerCheck(auth: GrpcAuth, table: CallerTable): ServerInterceptor {
  return (method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const refusal = refuse(method.path, table, identifyCaller(auth, metadata, call.getAuthContext()));
            if (refusal === undefined) pass(metadata);
            else call.sendStatus(refusal);
          },
        }),
    });
}

function refuse(path: string, table: CallerTable, caller: ServiceIdentity | undefined): StatusObject | undefined {
  if (path.startsWith(OPEN_PREFIX)) return undefined;
  if (caller === undefined) {
    return toGrpcStatus(appError('REMOTE_RELAY_AUTH', `${path} needs a relay service's credentials, and this call has none the service accepts.`));
  }
  const allowed = table.get(path) ?? [];
  if (allowed.includes(caller)) return undefined;
  return toGrpcStatus(
    appError('REMOTE_RELAY_FORBIDDEN', `${path} may not be called by the ${caller} service (only by ${allowed.join(', ') || 'no service'}).`, {
      details: { caller, allowed: [...allowed] },
    }),
  );
}

/** The service making a call, by its token or its client certificate; undefined when it proves none. */
export function identifyCaller(auth: GrpcAuth, metadata: Metadata, context: AuthContext): ServiceIdentity | undefined {
  return auth.kind === 'token' ? byToken(auth.keys, metadata) : byCertificate(context);
}

function byToken(keys: ReadonlyMap<ServiceIdentity, Buffer>, metadata: Metadata): ServiceIdentity | undefined {
  const value = metadata.get(SERVICE_AUTH_METADATA_KEY)[0];
  if (typeof value !== 'string') return undefined;
  const separator = value.indexOf(':');
  const service = value.slice(0, separator);
  if (separator < 0 || !isServiceIdentity(service)) return undefined;
  const expected = keys.get(service);
  return expected !== undefined && digestMatches(expected, value.slice(separator + 1)) ? service : undefined;
}

function digestMatches(expected: Buffer, token: string): boolean {
  const actual = Buffer.from(serviceKey(token), 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The service a verified client certificate names: the first label of its DNS names (`session`,
 * `session.relay.svc`). grpc-js reports no certificate unless it verified it against the CA.
 */
function byCertificate(context: AuthContext): ServiceIdentity | undefined {
  const names = context.sslPeerCertificate?.subjectaltname ?? '';
  const services = new Set(
    names
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.startsWith('DNS:'))
      .map((entry) => entry.slice('DNS:'.length).split('.')[0] ?? '')
      .filter(isServiceIdentity),
  );
  // A certificate naming two services proves neither.
  return services.size === 1 ? [...services][0] : undefined;
}
