/**
 * How a service that uses the bus connects to NATS: its own NATS user (docs/adr/0015), and TLS when
 * NATS_TLS_CA names the CA that signed the server's certificate (Kubernetes, cert-manager). With TLS the
 * connection never falls back to plaintext: a server that offers no TLS is refused.
 */
import { z } from 'zod';

const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalText = z.preprocess(blankAsUnset, z.string().optional());
const optionalFile = z.preprocess(blankAsUnset, z.string().startsWith('/', 'must be an absolute file path, for example /etc/relay/tls/ca.crt').optional());

export const natsEnv = {
  /** The service's own NATS user and its password; unset: no credentials, for a server without users. */
  NATS_USER: optionalText,
  NATS_PASSWORD: optionalText,
  /** The CA certificate the server's certificate is checked against; set, the connection is TLS or nothing. */
  NATS_TLS_CA: optionalFile,
  /** The service's own certificate and key, for a server that verifies its clients' certificates. */
  NATS_TLS_CERT: optionalFile,
  NATS_TLS_KEY: optionalFile,
};

type NatsVariables = { NATS_URL: string } & { [K in keyof typeof natsEnv]?: string | undefined };

/** The schema refinement: a client certificate comes with its key and the CA it checks the server with. */
export function requireNatsTls(config: NatsVariables, context: z.RefinementCtx): void {
  const client = (['NATS_TLS_CERT', 'NATS_TLS_KEY'] as const).filter((name) => config[name] !== undefined);
  if (client.length === 0) return;
  for (const name of (['NATS_TLS_CA', 'NATS_TLS_CERT', 'NATS_TLS_KEY'] as const).filter((variable) => config[variable] === undefined)) {
    context.addIssue({
      code: 'custom',
      path: [name],
      message: `required with ${client.join(' and ')}: a client certificate needs its key, and the CA that checks the server`,
    });
  }
}

/** What connectBus needs from the environment. */
export type NatsClientOptions = {
  url: string;
  user?: string | undefined;
  password?: string | undefined;
  tls?: { caFile: string; certFile?: string; keyFile?: string } | undefined;
};

export function natsClientOptions(config: NatsVariables): NatsClientOptions {
  const { NATS_TLS_CA: caFile, NATS_TLS_CERT: certFile, NATS_TLS_KEY: keyFile } = config;
  return {
    url: config.NATS_URL,
    user: config.NATS_USER,
    password: config.NATS_PASSWORD,
    tls: caFile === undefined ? undefined : { caFile, ...(certFile !== undefined && keyFile !== undefined ? { certFile, keyFile } : {}) },
  };
}
