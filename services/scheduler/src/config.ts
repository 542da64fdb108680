/**
 * The scheduler service's environment: the only place it reads process.env.
 */
import { z } from 'zod';
import { baseEnv, grpcServerEnv, databaseUrl, grpcAddress, natsEnv, requireNatsTls, parseEnv, port, requireGrpcCredentials, streamEnv } from '@relay/config';

const schema = z
  .object({
    ...baseEnv,
    ...natsEnv,
    ...streamEnv,
    DATABASE_URL: databaseUrl,
    GRPC_PORT: port(50053),
    ...grpcServerEnv,
    /** The session service: the loop guard. */
    SESSION_GRPC_ADDR: grpcAddress('127.0.0.1:50051').default('127.0.0.1:50051'),
  })
  .superRefine(requireGrpcCredentials(true))
  .superRefine(requireNatsTls);

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
