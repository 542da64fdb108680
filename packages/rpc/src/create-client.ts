import { credentials, type ChannelCredentials, type ClientOptions } from '@grpc/grpc-js';

/** A generated client class (`SessionServiceClient` and the like). */
export type ClientConstructor<C> = new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => C;

/** A client on an insecure channel to `host:port`; inside the cluster, transport security belongs to the mesh. */
export function createClient<C>(ClientCtor: ClientConstructor<C>, address: string, options?: Partial<ClientOptions>): C {
  return new ClientCtor(address, credentials.createInsecure(), options);
}
