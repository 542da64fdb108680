/**
 * The gateway's environment: the only place it reads process.env.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { baseEnv, grpcAddress, grpcAuthEnv, parseEnv, port, requireGrpcCredentials } from '@relay/config';

/** A host name, an IPv4 address or a bracketed IPv6 address, with an optional port. */
const HOST_ENTRY = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/;

const schema = z
  .object({
    PORT: port(7420),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** This relay's name as agents and paired relays see it ("this" also names it). */
    RELAY_NAME: z
      .string()
      .trim()
      .regex(/^[\w.-]+$/, 'must be letters, digits, ".", "-" or "_", for example desk')
      .default(() => hostname()),
    /** The base URL users and clients reach this gateway at; defaults to loopback on PORT. */
    RELAY_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, for example https://relay.example.com' }).optional(),
    /**
     * Further names /mcp answers under (DNS-rebinding protection), comma-separated, each a host or host:port, for
     * example an ingress's or a Service's name: "relay.internal,gateway". Loopback and RELAY_PUBLIC_URL's host always are.
     */
    RELAY_ALLOWED_HOSTS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter((entry) => entry !== ''),
      )
      .pipe(z.array(z.string().regex(HOST_ENTRY, 'each entry must be a host or host:port, for example relay.internal or gateway:7420'))),
    /**
     * The proxies in front of the gateway (addresses or CIDRs, comma-separated) whose X-Forwarded-For names the
     * client; unset, the connection's address is the client's. The failed-sign-in limits count per client.
     */
    RELAY_TRUSTED_PROXIES: z.string().trim().optional(),
    /** Failed token checks one client address may make per minute before it must wait. */
    RELAY_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    /** Wrong pairing codes one client address may try per minute before it must wait. */
    RELAY_PAIRING_TRIES_PER_MINUTE: z.coerce.number().int().min(1).default(10),
    /**
     * Fair shares (docs/relay-tool.md): the calls of one user that work without waiting (relay_tool's reads, the user
     * API's requests) at work at once on this gateway while no other user is present, and while another is; those
     * waiting their turn (one more is refused with REMOTE_RELAY_CALL_LIMIT); and the calls of all users at work at once.
     */
    RELAY_CALLS_PER_USER: z.coerce.number().int().min(1).default(4),
    RELAY_CALLS_PER_USER_SHARED: z.coerce.number().int().min(1).default(1),
    RELAY_CALLS_QUEUED_PER_USER: z.coerce.number().int().min(0).default(64),
    RELAY_CALLS_AT_WORK: z.coerce.number().int().min(1).default(16),
    /**
     * How long (seconds, real time as its client counts) an external session's relay_tool call may hold its response: its client drops
     * a call held longer (about 60 s for Claude Desktop, Claude Code and the Inspector), so it answers by then with
     * what still waits (the card, the message) for its next call or `wait`.
     */
    /**
     * Tests only: lets MCP clients' metadata documents (their client_id URLs) be fetched over http and from loopback or
     * private addresses. Never set it on a relay others reach: it lets a client_id point the gateway at internal hosts.
     */
    RELAY_OAUTH_INSECURE_CLIENT_IDS: z.stringbool().default(false),
    RELAY_EXTERNAL_CALL_SECONDS: z.coerce.number().int().min(1).max(3600).default(50),
    SESSION_GRPC_ADDR: grpcAddress('127.0.0.1:50051').default('127.0.0.1:50051'),
    PAIRING_GRPC_ADDR: grpcAddress('127.0.0.1:50055').default('127.0.0.1:50055'),
    QUESTION_GRPC_ADDR: grpcAddress('127.0.0.1:50054').default('127.0.0.1:50054'),
    SUBSCRIPTION_GRPC_ADDR: grpcAddress('127.0.0.1:50052').default('127.0.0.1:50052'),
    SCHEDULER_GRPC_ADDR: grpcAddress('127.0.0.1:50053').default('127.0.0.1:50053'),
    ...grpcAuthEnv,
    LOG_LEVEL: baseEnv.LOG_LEVEL,
    RELAY_CLOCK: baseEnv.RELAY_CLOCK,
    RELAY_CLOCK_EPOCH: baseEnv.RELAY_CLOCK_EPOCH,
    RELAY_CLOCK_CONTROL: baseEnv.RELAY_CLOCK_CONTROL,
  })
  .superRefine(requireGrpcCredentials(false))
  .transform(({ RELAY_PUBLIC_URL, ...rest }) => ({
    ...rest,
    RELAY_PUBLIC_URL: (RELAY_PUBLIC_URL ?? `http://127.0.0.1:${rest.PORT}`).replace(/\/+$/, ''),
    /** Set only when RELAY_PUBLIC_URL is: the loopback default opens nothing for anyone else, so no openUrl is shown. */
    OPEN_URL_BASE: RELAY_PUBLIC_URL?.replace(/\/+$/, ''),
  }));

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
