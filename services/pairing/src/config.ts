/**
 * The pairing service's environment: the only place it reads process.env.
 */
import { z } from 'zod';
import { baseEnv, grpcServerEnv, databaseUrl, grpcAddress, natsEnv, requireNatsTls, parseEnv, port, requireGrpcCredentials, streamEnv } from '@relay/config';

const schema = z
  .object({
    ...baseEnv,
    ...natsEnv,
    ...streamEnv,
    DATABASE_URL: databaseUrl,
    GRPC_PORT: port(50055),
    ...grpcServerEnv,
    /** The subscription service, which takes the events fetched from paired relays. */
    SUBSCRIPTION_GRPC_ADDR: grpcAddress('127.0.0.1:50052').default('127.0.0.1:50052'),
    /** Between fetches of one subscription to a paired relay ("every few seconds"; relay time). */
    REMOTE_FETCH_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    /** Between passes computing stalled, all_idle and the heartbeat of paired relays' subscriptions to our sessions (relay time). */
    REMOTE_COMPUTE_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** Events kept per paired relay's subscription while its link is down (500; smaller only for tests). */
    REMOTE_BUFFER_LIMIT: z.coerce.number().int().min(1).max(500).default(500),
    /** The question service, which tells a conversation the answer to its ask on a paired relay. */
    QUESTION_GRPC_ADDR: grpcAddress('127.0.0.1:50054').default('127.0.0.1:50054'),
    /** Between polls of an ask on a paired relay while it answers / while it does not (5 s / 30 s; shorter only for tests). */
    REMOTE_ASK_POLL_MS: z.coerce.number().int().min(100).max(5_000).default(5_000),
    REMOTE_ASK_POLL_OFFLINE_MS: z.coerce.number().int().min(100).max(30_000).default(30_000),
  })
  .superRefine(requireGrpcCredentials(true))
  .superRefine(requireNatsTls);

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
