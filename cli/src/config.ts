/** The CLI's environment: the only place it reads process.env. */
import { resolve } from 'node:path';
import { z } from 'zod';
import { clockSpec, parseEnv } from '@relay/config';

const urlWith = (protocols: string[], example: string) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.join(' or ')} URL, for example ${example}`,
  );

const blankAsUnset = (value: unknown) => (value === '' ? undefined : value);

const upSchema = z.object({
  NATS_URL: z.preprocess(blankAsUnset, urlWith(['nats:', 'tls:'], 'nats://127.0.0.1:4222').optional()),
  DATABASE_URL: z.preprocess(blankAsUnset, urlWith(['postgres:', 'postgresql:'], 'postgresql://postgres@127.0.0.1:5432/postgres').optional()),
  RELAY_PORT: z.preprocess(blankAsUnset, z.coerce.number().int().min(1).max(65535).optional()),
  RELAY_NAME: z.preprocess(blankAsUnset, z.string().optional()),
  RELAY_HOST: z.preprocess(blankAsUnset, z.string().default('127.0.0.1')),
  RELAY_PUBLIC_URL: z.preprocess(blankAsUnset, urlWith(['http:', 'https:'], 'https://relay.example.com').optional()),
  // The one-machine stack is for trying the relay: agent sessions start switched on (the services' default is off).
  RELAY_AGENT_SESSIONS: z.preprocess(blankAsUnset, z.enum(['on', 'off']).default('on')),
  LOG_LEVEL: z.preprocess(blankAsUnset, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  RELAY_CLOCK: z.preprocess(blankAsUnset, z.string().optional()),
  RELAY_CLOCK_EPOCH: z.preprocess(blankAsUnset, z.coerce.number().int().positive().optional()),
  NO_COLOR: z.string().optional(),
  // Where relay up keeps its state (lock, credentials, embedded PostgreSQL, NATS); a second relay on one machine needs its own.
  RELAY_DATA_DIR: z.preprocess(blankAsUnset, z.string().optional()),
});

const clientSchema = z.object({
  RELAY_URL: z.preprocess(blankAsUnset, urlWith(['http:', 'https:'], 'http://127.0.0.1:7420').optional()),
  RELAY_TOKEN: z.preprocess(blankAsUnset, z.string().optional()),
});

export type UpConfig = {
  natsUrl?: string;
  databaseUrl?: string;
  /** Set only when the user chose the port, which then must be free. */
  relayPort?: number;
  relayName: string;
  /** The address the gateway binds (RELAY_HOST, default loopback only). */
  host: string;
  publicUrl?: string;
  /** "Agents may start and use sessions on this relay" on a relay's first start. */
  agentSessions: 'on' | 'off';
  logLevel: string;
  clockSpec?: string;
  clockEpochMs?: number;
  /** RELAY_DATA_DIR: where relay up keeps its state; unset means `.relay/` in this repository. */
  dataDir?: string;
  noColor: boolean;
  /** The environment the services inherit (provider keys, PATH, OTEL_* …) under the relay's own variables. */
  inheritedEnv: Record<string, string>;
};

export type ClientConfig = { relayUrl?: string; relayToken?: string };

/** `relay up`'s settings; throws ConfigError naming every bad variable. */
export function loadUpConfig(hostname: string, env: NodeJS.ProcessEnv = process.env): UpConfig {
  const parsed = parseEnv(upSchema, env);
  if (parsed.RELAY_CLOCK !== undefined) parseEnv(z.object({ RELAY_CLOCK: clockSpec }), { RELAY_CLOCK: parsed.RELAY_CLOCK });
  const inheritedEnv = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return {
    ...(parsed.NATS_URL !== undefined ? { natsUrl: parsed.NATS_URL } : {}),
    ...(parsed.DATABASE_URL !== undefined ? { databaseUrl: parsed.DATABASE_URL } : {}),
    ...(parsed.RELAY_PORT !== undefined ? { relayPort: parsed.RELAY_PORT } : {}),
    relayName: parsed.RELAY_NAME ?? hostname,
    host: parsed.RELAY_HOST,
    ...(parsed.RELAY_PUBLIC_URL !== undefined ? { publicUrl: parsed.RELAY_PUBLIC_URL } : {}),
    agentSessions: parsed.RELAY_AGENT_SESSIONS,
    logLevel: parsed.LOG_LEVEL,
    ...(parsed.RELAY_CLOCK !== undefined ? { clockSpec: parsed.RELAY_CLOCK } : {}),
    ...(parsed.RELAY_CLOCK_EPOCH !== undefined ? { clockEpochMs: parsed.RELAY_CLOCK_EPOCH } : {}),
    ...(parsed.RELAY_DATA_DIR !== undefined ? { dataDir: resolve(parsed.RELAY_DATA_DIR) } : {}),
    noColor: parsed.NO_COLOR !== undefined && parsed.NO_COLOR !== '',
    inheritedEnv,
  };
}

/** Where `relay sessions` and `relay session create` send their requests, when the environment says. */
export function loadClientConfig(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const parsed = parseEnv(clientSchema, env);
  return {
    ...(parsed.RELAY_URL !== undefined ? { relayUrl: parsed.RELAY_URL.replace(/\/+$/, '') } : {}),
    ...(parsed.RELAY_TOKEN !== undefined ? { relayToken: parsed.RELAY_TOKEN } : {}),
  };
}
