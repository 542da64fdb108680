/**
 * The session service's environment: the only place it reads process.env.
 */
import { homedir, hostname } from 'node:os';
import { z } from 'zod';
import { baseEnv, databaseUrl, grpcAddress, grpcServerEnv, natsEnv, requireNatsTls, parseEnv, port, requireGrpcCredentials, streamEnv } from '@relay/config';
import { inStateFolder, isInsideAny, normaliseFolder, RELAY_STATE_FOLDER } from './domain/sessions/folders.ts';
import { RELAY_SETTING_RANGES } from './domain/settings/relay-settings.ts';

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
      .transform((value) =>
        value
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      )
      .optional()
      .transform((value) => value ?? fallback),
  );
}

/** A JSON text holding a value of `inner`. */
function jsonOf<T extends z.ZodType>(inner: T) {
  return z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(inner);
}

/** Provider ids the relay's own table has: an extra endpoint may not take one. */
const RESERVED_PROVIDER_IDS = ['script', 'openai', 'claude', 'claude-api', 'claude-cloud', 'copilot', 'codex', 'deepseek', 'openai-image', 'external'];

/** A price in US dollars per million tokens. */
const usdPerMTok = z
  .number({ error: 'must be a number of US dollars per million tokens, for example 0.27' })
  .nonnegative('must not be negative')
  .max(10_000, 'must be at most 10000 US dollars per million tokens');

/** A model's price: what its reported tokens cost (an OpenAI-compatible endpoint reports tokens only). */
const modelPrice = z.strictObject({
  inputUsdPerMTok: usdPerMTok,
  outputUsdPerMTok: usdPerMTok,
  /** Input tokens served from the prompt cache; unset: priced as other input. */
  cachedInputUsdPerMTok: usdPerMTok.optional(),
});

/** Prices per model id: {"deepseek-chat":{"inputUsdPerMTok":0.27,"outputUsdPerMTok":1.1}}. */
const modelPrices = z.record(z.string().trim().min(1, 'a model id must not be empty'), modelPrice);

const openAIEndpoint = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, for example grok')
    .refine((id) => !RESERVED_PROVIDER_IDS.includes(id), { message: `must not be one of the relay's own provider ids (${RESERVED_PROVIDER_IDS.join(', ')})` }),
  /** What relay_info shows; the id when not given. */
  name: z.string().trim().min(1).optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, for example http://127.0.0.1:11434/v1' }),
  apiKey: z.string().min(1).optional(),
  models: z.array(z.string().trim().min(1)).min(1).optional(),
  /** Per model id, what its tokens cost; a turn on a model without a price has no cost (not reported). */
  prices: modelPrices.optional(),
});

/** An ACP agent (RELAY_ACP_AGENTS): its provider id, the command that speaks ACP on stdio, and what it is given. */
const acpAgent = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes, for example gemini')
    .refine((id) => !RESERVED_PROVIDER_IDS.includes(id), { message: `must not be one of the relay's own provider ids (${RESERVED_PROVIDER_IDS.join(', ')})` }),
  /** What relay_info shows; the id when not given. */
  name: z.string().trim().min(1).optional(),
  /** The program and its arguments, e.g. ["gemini", "--experimental-acp"]; a bare program is looked up on PATH. */
  command: z.array(z.string().min(1)).min(1, 'must name the program, for example ["opencode", "acp"]'),
  /** Variables the agent (only) is given, e.g. its API key: {"GEMINI_API_KEY":"…"}; never a command it runs. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'), z.string()).optional(),
  /** Folders the agent's program reads besides the system's (its installation), read-only in the sandbox. */
  readOnly: z.array(absolutePath).optional(),
  /**
   * Files the relay puts in the agent's home in the sandbox, read-only, before it starts: its path there → its text
   * (an object: written as JSON), e.g. Gemini CLI's {".gemini/settings.json": {"security": …}}, the settings that keep
   * its key out of the commands it runs itself.
   */
  homeFiles: z
    .record(z.string(), z.union([z.string(), z.record(z.string(), z.unknown())]))
    .superRefine((files, context) => {
      for (const path of Object.keys(files))
        if (path.includes('\0') || !path.split('/').every((part) => part !== '' && part !== '.' && part !== '..'))
          context.addIssue({ code: 'custom', path: [path], message: 'must be a path inside the home, for example .gemini/settings.json' });
    })
    .optional(),
  /** Its model ids; unset: asked of the agent at start (its "model" config option), unknown when it has none. */
  models: z.array(z.string().trim().min(1)).min(1).optional(),
});

const allowance = z.strictObject({
  monthlyTokens: z.number().int().nonnegative().optional(),
  monthlyUsd: z.number().nonnegative().optional(),
});

/** A number setting's default, within the range the user may set it to (relay-settings.ts). */
function setting(range: { min: number; max: number }) {
  return z.coerce.number().int().min(range.min).max(range.max);
}

const schema = z
  .object({
    ...baseEnv,
    ...natsEnv,
    ...streamEnv,
    DATABASE_URL: databaseUrl,
    GRPC_PORT: port(50051),
    ...grpcServerEnv,
    /** The gateway's base URL: the script agent calls relay_tool at its /mcp with its session's token. */
    RELAY_GATEWAY_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, for example http://127.0.0.1:7420' }).default('http://127.0.0.1:7420'),
    QUESTION_GRPC_ADDR: grpcAddress('127.0.0.1:50054').default('127.0.0.1:50054'),
    /**
     * The command runner (Kubernetes, docs/adr/0031-command-runner.md): set, every allowed command runs there over
     * mutual TLS instead of in this machine's bubblewrap sandbox. Unset on one machine (relay up).
     */
    RELAY_COMMAND_RUNNER_ADDR: z.preprocess(blankAsUnset, grpcAddress('runner:50056').optional()),
    /** Default of "Agents may start and use sessions on this relay"; the settings row wins once it exists. */
    RELAY_AGENT_SESSIONS: z.enum(['on', 'off']).default('off'),
    /** Default of the relay's Longest wait per tool call; the settings row wins once it exists. */
    RELAY_MAX_WAIT_SECONDS: setting(RELAY_SETTING_RANGES.maxWaitSeconds).default(600),
    /** Default of the relay's Max turn duration; the settings row wins once it exists. */
    RELAY_MAX_TURN_MINUTES: setting(RELAY_SETTING_RANGES.maxTurnMinutes).default(60),
    /** This relay's name, as refusals and provenance name it; the same value the gateway is given. */
    RELAY_NAME: z
      .string()
      .trim()
      .regex(/^[\w.-]+$/, 'must be letters, digits, ".", "-" or "_", for example desk')
      .default(() => hostname()),
    /** The folder a session starts in when neither its creator nor the calling session names one. */
    RELAY_DEFAULT_CWD: absolutePath.default(() => homedir()),
    /** The folders (comma-separated, absolute) sessions may use, subfolders included; never the relay's state folder. */
    RELAY_ALLOWED_ROOTS: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((root) => root.trim())
          .filter((root) => root !== ''),
      )
      .pipe(
        z
          .array(
            absolutePath.refine(
              (root) => !inStateFolder(normaliseFolder(root) ?? root),
              `must not be or lie inside a ${RELAY_STATE_FOLDER} folder (the relay's state, its credentials)`,
            ),
          )
          .min(1, 'must name at least one absolute folder'),
      )
      .default(() => [homedir(), '/tmp']),
    /**
     * Whether the built-in `script` agent runs here (on: `relay up`, the tests, the dev overlay). It runs the commands
     * of its prompts (each on the owner's Allow); a team's relay (the prod overlay) switches it off.
     */
    RELAY_SCRIPT_PROVIDER: z.enum(['on', 'off']).default('on'),

    // Providers (decisions.md, Providers): a provider without its setting is listed as unavailable, with why.
    /** An OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp, …) for provider "openai". */
    RELAY_OPENAI_BASE_URL: optionalUrl,
    /** The endpoint's model ids; without them the list is unknown until discovery and models go on unchecked. */
    RELAY_OPENAI_MODELS: modelList(),
    /** The endpoint's API key, sent as a bearer token; unset for endpoints that take none (Ollama, llama.cpp). */
    RELAY_OPENAI_API_KEY: optionalSecret,
    /** The endpoint's prices per model, as JSON (see modelPrices); unset: its cost is not tracked. */
    RELAY_OPENAI_PRICES: z.preprocess(blankAsUnset, jsonOf(modelPrices).optional()),
    /** Claude Code's subscription credentials (provider "claude"). */
    CLAUDE_CODE_OAUTH_TOKEN: optionalSecret,
    /** The Anthropic API key (providers "claude-api" and "claude-cloud"). */
    ANTHROPIC_API_KEY: optionalSecret,
    RELAY_CLAUDE_MODELS: modelList(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']),
    /**
     * Claude Cloud (provider "claude-cloud"), on Anthropic's Managed Agents API with ANTHROPIC_API_KEY: the agent its
     * sessions run (its model and tools are set per session) and the cloud environment they run in, both made once in
     * Anthropic's Console or API.
     */
    RELAY_CLAUDE_CLOUD_AGENT_ID: z.preprocess(blankAsUnset, z.string().trim().optional()),
    RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID: z.preprocess(blankAsUnset, z.string().trim().optional()),
    /** A GitHub token the cloud session clones a private repository with (public ones need none). */
    RELAY_CLAUDE_CLOUD_GITHUB_TOKEN: optionalSecret,
    /** Each cloud session's spend ceiling in USD (the API's budget); unset: none. */
    RELAY_CLAUDE_CLOUD_BUDGET_USD: z.preprocess(blankAsUnset, z.coerce.number().positive().optional()),
    /** The Managed Agents API's base URL (a test's loopback fake); unset: Anthropic's. */
    RELAY_CLAUDE_CLOUD_BASE_URL: optionalUrl,
    /**
     * The gateway's /mcp as Anthropic's cloud reaches it (the relay's public URL); set, a cloud session gets relay_tool
     * there, with the session's token kept in a vault of its own. Unset: no relay_tool for cloud sessions.
     */
    RELAY_CLAUDE_CLOUD_MCP_URL: optionalUrl,
    /** GitHub Copilot's token (provider "copilot"). */
    COPILOT_GITHUB_TOKEN: optionalSecret,
    /**
     * Copilot's bring-your-own-key endpoint: an OpenAI-compatible base URL (…/v1) its runtime sends the model's
     * requests to instead of GitHub's; with it, no COPILOT_GITHUB_TOKEN is needed.
     */
    RELAY_COPILOT_BASE_URL: optionalUrl,
    /** The BYOK endpoint's API key (unset for endpoints that take none). */
    RELAY_COPILOT_API_KEY: optionalSecret,
    /** The Copilot CLI to run (absolute); unset: the runtime the SDK ships for this platform (@github/copilot-sdk-<platform>). */
    RELAY_COPILOT_CLI_PATH: z.preprocess(blankAsUnset, absolutePath.optional()),
    RELAY_COPILOT_MODELS: modelList(['claude-opus-5.5', 'claude-sonnet-5.5', 'gpt-5.4', 'gpt-5.4-mini']),
    /**
     * Codex (provider "codex") runs on OpenAI's API with OPENAI_API_KEY, or on this OpenAI-compatible endpoint (…/v1)
     * that speaks the Responses API, with RELAY_CODEX_API_KEY (unset for an endpoint that takes none).
     */
    RELAY_CODEX_BASE_URL: optionalUrl,
    RELAY_CODEX_API_KEY: optionalSecret,
    /** The Codex CLI to run (absolute); unset: the one Codex's SDK brings for this platform (@openai/codex-<platform>). */
    RELAY_CODEX_CLI_PATH: z.preprocess(blankAsUnset, absolutePath.optional()),
    /** Codex's model ids; unset: discovered from the endpoint's GET /models at start. */
    RELAY_CODEX_MODELS: modelList(),
    /** DeepSeek's API key (provider "deepseek"). */
    DEEPSEEK_API_KEY: optionalSecret,
    RELAY_DEEPSEEK_MODELS: modelList(['deepseek-chat', 'deepseek-reasoner']),
    /** DeepSeek's prices per model, as JSON (see modelPrices); unset: its cost is not tracked. */
    RELAY_DEEPSEEK_PRICES: z.preprocess(blankAsUnset, jsonOf(modelPrices).optional()),
    /** OpenAI's API key: for image chats (provider "openai-image", which create_session refuses anyway) and Codex. */
    OPENAI_API_KEY: optionalSecret,
    /** DeepSeek's OpenAI-compatible endpoint. */
    RELAY_DEEPSEEK_BASE_URL: optionalUrl.transform((value) => value ?? 'https://api.deepseek.com/v1'),
    /**
     * More OpenAI-compatible endpoints, each its own provider id (decisions.md, Providers), as a JSON list:
     * [{"id":"grok","baseUrl":"https://api.x.ai/v1","apiKey":"…","models":["grok-4"],"prices":{"grok-4":{"inputUsdPerMTok":3,"outputUsdPerMTok":15}}},
     *  {"id":"ollama","baseUrl":"http://127.0.0.1:11434/v1"}].
     * Without models, an endpoint's list is discovered from GET {baseUrl}/models. Without prices, its cost is not tracked.
     */
    RELAY_OPENAI_ENDPOINTS: z.preprocess(
      blankAsUnset,
      jsonOf(z.array(openAIEndpoint))
        .optional()
        .transform((value) => value ?? []),
    ),
    /**
     * Agents that speak the Agent Client Protocol on stdio (Gemini CLI, OpenCode, …), each its own provider id, as a
     * JSON list: [{"id":"gemini","name":"Gemini CLI","command":["gemini","--experimental-acp"],"env":{"GEMINI_API_KEY":"…"}},
     * {"id":"opencode","command":["opencode","acp"],"models":["anthropic/claude-sonnet-4"]}]. Each runs in the relay's sandbox.
     */
    RELAY_ACP_AGENTS: z.preprocess(
      blankAsUnset,
      jsonOf(z.array(acpAgent))
        .optional()
        .transform((value) => value ?? []),
    ),
    /** Claude Code's executable; unset: the one the Claude Agent SDK ships for this platform. */
    RELAY_CLAUDE_EXECUTABLE: z.preprocess(blankAsUnset, absolutePath.optional()),
    /** The monthly cap of the Anthropic API key (provider "claude-api"), in US dollars of the relay's own cost accounting. */
    RELAY_CLAUDE_API_MONTHLY_CAP_USD: z.preprocess(blankAsUnset, z.coerce.number().nonnegative().optional()),
    /**
     * Monthly allowances per provider for usage's meters, as JSON: {"openai":{"monthlyTokens":2000000},"deepseek":{"monthlyUsd":20}}.
     * claude-api's monthlyUsd is RELAY_CLAUDE_API_MONTHLY_CAP_USD. An OpenAI-compatible provider's monthlyUsd needs its prices.
     */
    RELAY_USAGE_ALLOWANCES: z.preprocess(
      blankAsUnset,
      jsonOf(z.record(z.string(), allowance))
        .optional()
        .transform((value) => value ?? {}),
    ),

    /**
     * On SIGTERM (a rollout, a scale-down) how long the turns running here may go on to end by themselves, while this
     * replica claims no new ones; those still running then end as "the relay stopped; send it again". Keep the pod's
     * terminationGracePeriodSeconds above it (k8s/base/session/deployment.yaml: 240). The default, 5, fits `relay up`,
     * which gives each service 10 s to stop.
     */
    RELAY_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),

    // Background tasks.
    /** Default of the relay's quiet setting for tasks (minutes without output, read_session and read_task_output); the settings row wins once it exists. */
    RELAY_TASK_QUIET_MINUTES: setting(RELAY_SETTING_RANGES.taskQuietMinutes).default(10),
  })
  .superRefine(requireGrpcCredentials(true))
  .superRefine(requireNatsTls)
  .superRefine((config, context) => {
    // Over tokens the call would hand the runner, where commands run, the session service's own credential.
    if (
      config.RELAY_COMMAND_RUNNER_ADDR !== undefined &&
      (config.GRPC_TLS_CA === undefined || config.GRPC_TLS_CERT === undefined || config.GRPC_TLS_KEY === undefined)
    ) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_COMMAND_RUNNER_ADDR'],
        message: 'needs mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY): commands never go to the runner with the service token',
      });
    }
  })
  .superRefine((config, context) => {
    const ids = config.RELAY_OPENAI_ENDPOINTS.map((endpoint) => endpoint.id);
    const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
    if (repeated.length > 0) {
      context.addIssue({ code: 'custom', path: ['RELAY_OPENAI_ENDPOINTS'], message: `names provider id ${[...new Set(repeated)].join(', ')} more than once` });
    }
    const agentIds = config.RELAY_ACP_AGENTS.map((agent) => agent.id);
    const takenAgentIds = agentIds.filter((id, index) => agentIds.indexOf(id) !== index || ids.includes(id));
    if (takenAgentIds.length > 0) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_ACP_AGENTS'],
        message: `names provider id ${[...new Set(takenAgentIds)].join(', ')} more than once (RELAY_OPENAI_ENDPOINTS included)`,
      });
    }
    config.RELAY_OPENAI_ENDPOINTS.forEach((endpoint, index) => {
      const unknown = endpoint.models === undefined ? [] : Object.keys(endpoint.prices ?? {}).filter((model) => !endpoint.models?.includes(model));
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          path: ['RELAY_OPENAI_ENDPOINTS', index, 'prices'],
          message: `prices model ${unknown.join(', ')}, which is not in the endpoint's models (${endpoint.models?.join(', ')})`,
        });
      }
    });
    // A cost allowance on a provider whose cost is not tracked could never fill: refused rather than ignored.
    const prices = openAIPrices(config);
    for (const [provider, allowance] of Object.entries(config.RELAY_USAGE_ALLOWANCES)) {
      if (allowance.monthlyUsd !== undefined && provider in prices && prices[provider] === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['RELAY_USAGE_ALLOWANCES', provider, 'monthlyUsd'],
          message: `${provider} reports tokens only, so its cost is not tracked without prices (${pricesVariable(provider)}); set its prices or use monthlyTokens`,
        });
      }
    }
    const defaultCwd = normaliseFolder(config.RELAY_DEFAULT_CWD) ?? '';
    if (!isInsideAny(defaultCwd, config.RELAY_ALLOWED_ROOTS)) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_DEFAULT_CWD'],
        message: `must lie inside RELAY_ALLOWED_ROOTS (${config.RELAY_ALLOWED_ROOTS.join(', ')})`,
      });
    } else if (inStateFolder(defaultCwd)) {
      context.addIssue({
        code: 'custom',
        path: ['RELAY_DEFAULT_CWD'],
        message: `must not lie inside a ${RELAY_STATE_FOLDER} folder (the relay's state, its credentials)`,
      });
    }
  });

export type Config = z.infer<typeof schema>;

/** A model's price, as configured. */
export type ModelPriceConfig = z.infer<typeof modelPrice>;

/**
 * The prices of every OpenAI-compatible provider this configuration names (openai, deepseek and each
 * RELAY_OPENAI_ENDPOINTS id), by provider id; undefined for one without prices, whose cost is not tracked.
 */
export function openAIPrices(
  config: Pick<Config, 'RELAY_OPENAI_PRICES' | 'RELAY_DEEPSEEK_PRICES' | 'RELAY_OPENAI_ENDPOINTS'>,
): Record<string, Readonly<Record<string, ModelPriceConfig>> | undefined> {
  return {
    openai: config.RELAY_OPENAI_PRICES,
    deepseek: config.RELAY_DEEPSEEK_PRICES,
    ...Object.fromEntries(config.RELAY_OPENAI_ENDPOINTS.map((endpoint) => [endpoint.id, endpoint.prices])),
  };
}

/** Where a provider's prices are set. */
function pricesVariable(provider: string): string {
  if (provider === 'openai') return 'RELAY_OPENAI_PRICES';
  if (provider === 'deepseek') return 'RELAY_DEEPSEEK_PRICES';
  return `"prices" of its RELAY_OPENAI_ENDPOINTS entry`;
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnv(schema, env);
}

/**
 * The variables of the relay's environment a command (a background task) is given: an allowlist, so that the
 * service's own secrets (DATABASE_URL, the bus's and the providers' credentials, tokens) never reach it.
 */
const COMMAND_VARIABLES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'SHELL',
  'TERM',
  'XDG_CONFIG_HOME',
  'NODE_EXTRA_CA_CERTS',
];

/**
 * The variables a provider's child process (Claude Code) is given besides: the proxies it reaches its API
 * through, ANTHROPIC_BASE_URL (an LLM gateway, or a test's loopback server), and the ones that keep it quiet.
 */
const AGENT_VARIABLES = [
  ...COMMAND_VARIABLES,
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'CLAUDE_CONFIG_DIR',
  'ANTHROPIC_BASE_URL',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
  'DISABLE_TELEMETRY',
  'DISABLE_AUTOUPDATER',
  'DISABLE_ERROR_REPORTING',
];

function pick(names: readonly string[], env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

/** An ACP agent as configured. */
export type AcpAgentConfig = z.infer<typeof acpAgent>;

/** The environment a provider's child process starts from (the provider adds its own credential). */
export function childProcessEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  return pick(AGENT_VARIABLES, env);
}

/** The environment a command the relay runs (a `task` step, a background Bash) starts with. */
export function commandEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  return pick(COMMAND_VARIABLES, env);
}
