import { credentials, experimental, InterceptingCall, type ChannelCredentials, type ClientOptions, type Interceptor } from '@grpc/grpc-js';
import { SERVICE_AUTH_METADATA_KEY, type GrpcAuth } from './grpc-auth.ts';
import { MESSAGE_LIMITS } from './message-limits.ts';

/** A generated client class (`SessionServiceClient` and the like). */
export type ClientConstructor<C> = new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => C;

/**
 * A client to `host:port` that proves which service is calling with every call: over mutual TLS with the
 * service's certificate, or (on one machine, over loopback) with its token in the call's metadata.
 */
export function createClient<C>(ClientCtor: ClientConstructor<C>, address: string, auth: GrpcAuth, options: Partial<ClientOptions> = {}): C {
  const limited = { ...MESSAGE_LIMITS, ...options };
  if (auth.kind === 'tls') {
    return new ClientCtor(address, experimental.createCertificateProviderChannelCredentials(auth.certificates, auth.certificates), limited);
  }
  // grpc-js refuses call credentials on an insecure channel, so the token goes in through an interceptor.
  const withToken: Interceptor = (callOptions, nextCall) =>
    new InterceptingCall(nextCall(callOptions), {
      start: (metadata, listener, next) => {
        metadata.set(SERVICE_AUTH_METADATA_KEY, `${auth.service}:${auth.token}`);
        next(metadata, listener);
      },
    });
  return new ClientCtor(address, credentials.createInsecure(), { ...limited, interceptors: [withToken, ...(options.interceptors ?? [])] });
}
