/**
 * The question service's environment: the only place it reads process.env.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { baseEnv, grpcServerEnv, databaseUrl, natsEnv, requireNatsTls, parseEnv, port, requireGrpcCredentials, streamEnv } from '@relay/config';

const schema = z
  .object({
    ...baseEnv,
    ...natsEnv,
    ...streamEnv,
    DATABASE_URL: databaseUrl,
    GRPC_PORT: port(50054),
    ...grpcServerEnv,
    /** This relay's name: the `via` of an ask answered here. The same value the gateway is given. */
    RELAY_NAME: z
      .string()
      .trim()
      .regex(/^[\w.-]+$/, 'must be letters, digits, ".", "-" or "_", for example desk')
      .default(() => hostname()),
    /** How often (real time) an AwaitCard stream sends progress, so proxies and clients keep the call open. */
    CARD_PROGRESS_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** The VAPID subject push services may contact about this relay's Web Push (a mailto: or https: URL). */
    NOTIFY_VAPID_SUBJECT: z
      .string()
      .trim()
      .regex(/^(mailto:|https:\/\/)\S+$/, 'must be a mailto: or https: URL, for example mailto:admin@example.com')
      .default('mailto:relay@localhost'),
  })
  .superRefine(requireGrpcCredentials(true))
  .superRefine(requireNatsTls);

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
