import { makeServiceCredentials, serviceAuth, type Callers, type GrpcAuth, type ServiceIdentity } from '@relay/rpc';

/** One relay's service credentials, made for a test the way `relay up` makes them at each start. */
export interface TestServiceCredentials {
  /** The credentials a test's server or client acting as `service` uses. */
  auth(service: ServiceIdentity): GrpcAuth;
  /** RELAY_SERVICE_TOKEN and RELAY_SERVICE_KEYS for `service` running as a process. */
  env(service: ServiceIdentity): { RELAY_SERVICE_TOKEN: string; RELAY_SERVICE_KEYS: string };
}

export function makeTestCredentials(): TestServiceCredentials {
  const made = makeServiceCredentials();
  return {
    auth: (service) => serviceAuth(made, service),
    env: (service) => ({ RELAY_SERVICE_TOKEN: made.tokens[service], RELAY_SERVICE_KEYS: made.keys }),
  };
}

/** A callers table letting `services` call every method of `definition`: for fakes of another service. */
export function callersFor<D extends object>(definition: D, ...services: ServiceIdentity[]): Callers<D> {
  return Object.fromEntries(Object.keys(definition).map((method) => [method, services])) as unknown as Callers<D>;
}
