/**
 * The session service's environment: the only place it reads process.env.
 */
import { homedir, hostname } from 'node:os';
import { z } from 'zod';
import { baseEnv, databaseUrl, grpcAddress, parseEnv, port } from '@relay/config';
import { isInsideAny, normaliseFolder } from './domain/folders.ts';

/** An absolute folder path. */
const absolutePath = z.string().trim().startsWith('/', 'must be an absolute path, for example /home/dev');

/** An unset or blank variable counts as not configured. */
const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalSecret = z.preprocess(blankAsUnset, z.string().optional());
const optionalUrl = z.preprocess(
  blankAsUnset,
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, for example http://127.0.0.1:11434/v1' }).optional(),
);

/** A comma-separated list of model ids; unset gives `fallback` (undefined: not known). */
function modelList(fallback?: string[]) {
  return z.preprocess(
    blankAsUnset,
    z
      .string()
      .transform((value) => value.split(',').map((id) => id.trim()).filter((id) => id !== ''))
      .optional()
      .transform((value) => value ?? fallback),
  );
}

const schema = z.object({
  ...baseEnv,
  DATABASE_URL: databaseUrl,
  GRPC_PORT: port(50051),
  /** The gateway's base URL: the script agent calls relay_tool at its /mcp with its session's token. */
  RELAY_GATEWAY_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, for example http://127.0.0.1:7420' }).default('http://127.0.0.1:7420'),
  QUESTION_GRPC_ADDR: grpcAddress('127.0.0.1:50054').default('127.0.0.1:50054'),
  /** Default of "Agents may start and use sessions on this relay"; the settings row wins once it exists. */
  RELAY_AGENT_SESSIONS: z.enum(['on', 'off']).default('off'),
  /** Default of the relay's Longest wait per tool call; the settings row wins once it exists. */
  RELAY_MAX_WAIT_SECONDS: z.coerce.number().int().min(120).max(3600).default(600),
  /** Default of the relay's Max turn duration; the settings row wins once it exists. */
  RELAY_MAX_TURN_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
  /** This relay's name, as refusals and provenance name it; the same value the gateway is given. */
  RELAY_NAME: z
    .string()
    .trim()
    .regex(/^[\w.-]+$/, 'must be letters, digits, ".", "-" or "_", for example desk')
    .default(() => hostname()),
  /** The folder a session starts in when neither its creator nor the calling session names one. */
  RELAY_DEFAULT_CWD: absolutePath.default(() => homedir()),
  /** The folders (comma-separated, absolute) sessions may use, subfolders included. */
  RELAY_ALLOWED_ROOTS: z
    .string()
    .transform((value) => value.split(',').map((root) => root.trim()).filter((root) => root !== ''))
    .pipe(z.array(absolutePath).min(1, 'must name at least one absolute folder'))
    .default(() => [homedir(), '/tmp']),

  // Providers (decisions.md, Providers): a provider without its setting is listed as unavailable, with why.
  /** An OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp, …) for provider "openai". */
  RELAY_OPENAI_BASE_URL: optionalUrl,
  /** The endpoint's model ids; without them the list is unknown until discovery and models go on unchecked. */
  RELAY_OPENAI_MODELS: modelList(),
  /** The endpoint's API key, sent as a bearer token; unset for endpoints that take none (Ollama, llama.cpp). */
  RELAY_OPENAI_API_KEY: optionalSecret,
  /** Claude Code's subscription credentials (providers "claude" and "claude-cloud"). */
  CLAUDE_CODE_OAUTH_TOKEN: optionalSecret,
  /** The Anthropic API key (provider "claude-api"). */
  ANTHROPIC_API_KEY: optionalSecret,
  RELAY_CLAUDE_MODELS: modelList(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']),
  /** GitHub Copilot's token (provider "copilot"). */
  COPILOT_GITHUB_TOKEN: optionalSecret,
  RELAY_COPILOT_MODELS: modelList(['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini']),
  /** DeepSeek's API key (provider "deepseek"). */
  DEEPSEEK_API_KEY: optionalSecret,
  RELAY_DEEPSEEK_MODELS: modelList(['deepseek-chat', 'deepseek-reasoner']),
  /** OpenAI's API key for image chats (provider "openai-image", which create_session refuses anyway). */
  OPENAI_API_KEY: optionalSecret,

  // Background tasks.
  /** Default of the relay's quiet setting for tasks (minutes without output, read_session and read_task_output); the settings row wins once it exists. */
  RELAY_TASK_QUIET_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
}).superRefine((config, context) => {
  if (!isInsideAny(normaliseFolder(config.RELAY_DEFAULT_CWD) ?? '', config.RELAY_ALLOWED_ROOTS)) {
    context.addIssue({ code: 'custom', path: ['RELAY_DEFAULT_CWD'], message: `must lie inside RELAY_ALLOWED_ROOTS (${config.RELAY_ALLOWED_ROOTS.join(', ')})` });
  }
});

export type Config = z.infer<typeof schema>;

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}
