/**
 * The session service's environment: the only place it reads process.env.
 */
import { z } from 'zod';
import { baseEnv, databaseUrl, parseEnv, port } from '@relay/config';

const schema = z.object({
  ...baseEnv,
  DATABASE_URL: databaseUrl,
  GRPC_PORT: port(50051),
  /** Default of "Agents may start and use sessions on this relay"; the settings row wins once it exists. */
  RELAY_AGENT_SESSIONS: z.enum(['on', 'off']).default('off'),
  /** Default of the relay's Longest wait per tool call; the settings row wins once it exists. */
  RELAY_MAX_WAIT_SECONDS: z.coerce.number().int().min(120).max(3600).default(600),
  /** Default of the relay's Max turn duration; the settings row wins once it exists. */
  RELAY_MAX_TURN_MINUTES: z.coerce.number().int().positive().default(60),
});

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
