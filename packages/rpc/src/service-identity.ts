import type { ServiceDefinition } from '@grpc/grpc-js';

/** The relay's services as gRPC callers know them: each has its own credential. */
export const SERVICE_IDENTITIES = ['gateway', 'session', 'subscription', 'scheduler', 'question', 'pairing'] as const;
export type ServiceIdentity = (typeof SERVICE_IDENTITIES)[number];

export function isServiceIdentity(value: string): value is ServiceIdentity {
  return (SERVICE_IDENTITIES as readonly string[]).includes(value);
}

/**
 * Who may call each RPC of a service, by the generated definition's method names (`createUser`). Every
 * method must be listed: a new RPC nobody was allowed to call would be refused to everyone.
 */
export type Callers<D extends object = ServiceDefinition> = { readonly [M in keyof D]: readonly ServiceIdentity[] };
