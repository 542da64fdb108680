import { credentials, experimental, InterceptingCall, type ChannelCredentials, type ChannelOptions, type ClientOptions, type Interceptor } from '@grpc/grpc-js';
import { answerAtResponse } from './answer-at-response.ts';
import { SERVICE_AUTH_METADATA_KEY, type GrpcAuth } from './grpc-auth.ts';
import { MESSAGE_LIMITS } from './message-limits.ts';
import { WITHOUT_CHANNELZ } from './channelz.ts';

/** A generated client class (`SessionServiceClient` and the like). */
export type ClientConstructor<C> = new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => C;

/**
 * How every relay client's channel balances and keeps its connections. A service's replicas sit behind a
 * headless Service, so DNS answers every ready pod and `round_robin` keeps a connection to each and spreads
 * calls over them (grpc-js's default, pick_first, would send everything to one pod for as long as it lives).
 * Keepalive pings find a connection a pod's disappearance left half-open within ~40 s, and the reconnect
 * backoff stays short so a restarted replica takes calls again within seconds; DNS is asked again whenever a
 * connection drops (a rollout) and at most every 5 s.
 * The HTTP/2 flow-control window is 1 MiB, not HTTP/2's 64 KiB: with 64 KiB a server may have no more answers on
 * their way than that, and the client grants more in a frame of its own every 32 KiB it reads, so a 256 KiB answer
 * (a long conversation, a task's output) waited on four such grants, and 50 listings at once on the connection's.
 * bench/grpc-hop.bench.ts, three runs: 256 KiB answers +33–68 % calls/s; 3.5 KB answers 50 at once +12–16 %, 16
 * at once +4–12 %, one at a time the same (bench/history.md, "A sixth machine").
 */
const CLIENT_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.dns_min_time_between_resolutions_ms': 5_000,
  'grpc-node.flow_control_window': 1 << 20,
};

/** Targets that already name their resolver; anything else (`host:port`) is resolved through DNS. */
const RESOLVER_SCHEME = /^(dns|ipv4|ipv6|unix|unix-abstract):/;

/** `session:50051` → `dns:///session:50051`, so that every A record of a headless Service is a replica to balance over. */
export function targetOf(address: string): string {
  return RESOLVER_SCHEME.test(address) ? address : `dns:///${address}`;
}

/**
 * A client to `address` (`host:port`, or a grpc target such as `ipv4:127.0.0.1:1,127.0.0.1:2`) that balances its
 * calls over every replica the address resolves to and proves which service is calling with every call: over
 * mutual TLS with the service's certificate, or (on one machine, over loopback) with its token in the call's metadata.
 * A unary call is answered as soon as its response arrives (answer-at-response.ts).
 */
export function createClient<C>(ClientCtor: ClientConstructor<C>, address: string, auth: GrpcAuth, options: Partial<ClientOptions> = {}): C {
  const target = targetOf(address);
  const channel = { ...MESSAGE_LIMITS, ...WITHOUT_CHANNELZ, ...CLIENT_CHANNEL_OPTIONS, ...options };
  const interceptors = [answerAtResponse, ...(options.interceptors ?? [])];
  if (auth.kind === 'tls') {
    return new ClientCtor(target, experimental.createCertificateProviderChannelCredentials(auth.certificates, auth.certificates), { ...channel, interceptors });
  }
  // grpc-js refuses call credentials on an insecure channel, so the token goes in through an interceptor.
  const withToken: Interceptor = (callOptions, nextCall) =>
    new InterceptingCall(nextCall(callOptions), {
      start: (metadata, listener, next) => {
        metadata.set(SERVICE_AUTH_METADATA_KEY, `${auth.service}:${auth.token}`);
        next(metadata, listener);
      },
    });
  return new ClientCtor(target, credentials.createInsecure(), { ...channel, interceptors: [withToken, ...interceptors] });
}
