/**
 * Config from the environment, parsed once by each service's zod schema. A bad environment is
 * reported in full — every bad variable named — and the process exits non-zero.
 */
import { z } from 'zod';
import { parseClockSpec, type ClockSpec } from '@relay/clock';

export * from './grpc-env.ts';

export * from './nats-authorization.ts';

export * from './nats-env.ts';

/** Every variable that is missing or wrong, each with what is wrong. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
  }
}

/** Parses `env` with `schema`; throws a ConfigError naming every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => ({
      variable: issue.path.map(String).join('.') || '(environment)',
      message: issue.message,
    })),
  );
}

/** A TCP port; 0 asks the OS for a free one. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** RELAY_CLOCK: "system", an ISO-8601 instant, or "<instant>@<N>x". */
export const clockSpec = z
  .string()
  .optional()
  .transform((value, ctx): ClockSpec => {
    try {
      return parseClockSpec(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const url = (protocols: string[], example: string) =>
  z.string({ error: `required, for example ${example}` }).refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.join(' or ')} URL, for example ${example}`,
  );

/** The variables every service reads the same way. */
export const baseEnv = {
  NATS_URL: url(['nats:', 'tls:'], 'nats://127.0.0.1:4222').default('nats://127.0.0.1:4222'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RELAY_CLOCK: clockSpec,
  /** Real epoch ms at which the virtual clock reads its start; set by whoever starts the services together. */
  RELAY_CLOCK_EPOCH: z.coerce.number().int().positive().optional(),
  /** A file through which whoever started the services moves a virtual clock forward (tests; see @relay/clock). */
  RELAY_CLOCK_CONTROL: z.string().min(1).optional(),
};

/**
 * NATS_STREAM_REPLICAS for the services that declare a JetStream stream: copies kept per stream, one per
 * server. 1 for a single nats-server; 3 on a three-node cluster, so a stream survives losing a server.
 */
export const streamReplicas = z.coerce
  .number({ error: 'must be a whole number from 1 to 5' })
  .int('must be a whole number from 1 to 5')
  .min(1, 'must be a whole number from 1 to 5')
  .max(5, 'must be a whole number from 1 to 5 (JetStream keeps at most 5 copies)')
  .default(1);

/**
 * How long a stream keeps a message, read or not, unless NATS_STREAM_MAX_AGE_HOURS says otherwise (and what
 * @relay/bus's ensureStream applies when given no age): 7 days, longer than any consumer's outage should last.
 */
export const DEFAULT_STREAM_MAX_AGE_HOURS = 168;
/**
 * The most a stream holds per copy unless NATS_STREAM_MAX_BYTES says otherwise (and ensureStream's size when given
 * none): 1 GiB. A full stream refuses new messages, which wait in the outbox.
 */
export const DEFAULT_STREAM_MAX_BYTES = 1024 ** 3;

/**
 * The stream a service declares: its copies (NATS_STREAM_REPLICAS), how long a message is kept, read or not
 * (NATS_STREAM_MAX_AGE_HOURS) and the most it holds per copy (NATS_STREAM_MAX_BYTES).
 */
export const streamEnv = {
  NATS_STREAM_REPLICAS: streamReplicas,
  NATS_STREAM_MAX_AGE_HOURS: z.coerce
    .number({ error: 'must be a number of hours' })
    .positive('must be more than 0 hours')
    .default(DEFAULT_STREAM_MAX_AGE_HOURS),
  NATS_STREAM_MAX_BYTES: z.coerce
    .number({ error: 'must be a whole number of bytes' })
    .int('must be a whole number of bytes')
    .min(1024 * 1024, 'must be at least 1 MiB (1048576)')
    .default(DEFAULT_STREAM_MAX_BYTES),
};

/** ensureStream's settings from a config read with streamEnv. */
export function streamSettings(config: { NATS_STREAM_REPLICAS: number; NATS_STREAM_MAX_AGE_HOURS: number; NATS_STREAM_MAX_BYTES: number }): {
  replicas: number;
  maxAgeMs: number;
  maxBytes: number;
} {
  return { replicas: config.NATS_STREAM_REPLICAS, maxAgeMs: config.NATS_STREAM_MAX_AGE_HOURS * 3_600_000, maxBytes: config.NATS_STREAM_MAX_BYTES };
}

/** DATABASE_URL for the services that own data. */
export const databaseUrl = url(['postgres:', 'postgresql:'], 'postgresql://postgres@127.0.0.1:5432/relay_session');

/**
 * A gRPC address of another service: host:port (a headless Service's name balances over every pod it resolves to), or
 * a list of replicas on fixed addresses as gRPC's ipv4 target names it, `ipv4:127.0.0.1:50051,127.0.0.1:50151`
 * (`relay up --replicas`); @relay/rpc's createClient balances over either.
 */
export const grpcAddress = (example: string) =>
  z
    .string({ error: `required, for example ${example}` })
    .regex(/^(?:[\w.-]+:\d+|ipv4:[\d.]+:\d+(?:,[\d.]+:\d+)*)$/, `must be host:port or ipv4:host:port,host:port, for example ${example}`);
