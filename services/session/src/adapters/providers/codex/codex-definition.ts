/**
 * OpenAI's Codex (provider "codex"), run by its CLI's app-server (codex-provider.ts): with OpenAI's key
 * (OPENAI_API_KEY), or an OpenAI-compatible endpoint that speaks the Responses API (RELAY_CODEX_BASE_URL, its key
 * RELAY_CODEX_API_KEY). Its models are RELAY_CODEX_MODELS, else the endpoint's GET /models. Unavailable, with why,
 * without either, without the CLI, or where no sandbox can be had.
 */
import type { CliLocation, CliProgram } from '../../../app/tasks/cli-sandbox.ts';
import type { Config } from '../../../config.ts';
import { defineProvider } from '../define-provider.ts';
import { CodexProvider, OPENAI_API, type CodexProviderOptions } from './codex-provider.ts';

const NOT_CONFIGURED = 'OpenAI API key for Codex not configured (OPENAI_API_KEY), nor an OpenAI-compatible endpoint (RELAY_CODEX_BASE_URL)';

export const codexDefinition = defineProvider({
  folder: 'codex',
  env: ['OPENAI_API_KEY', 'RELAY_CODEX_BASE_URL', 'RELAY_CODEX_API_KEY', 'RELAY_CODEX_CLI_PATH', 'RELAY_CODEX_MODELS'],
  list: (settings) => [
    {
      id: 'codex',
      name: 'Codex',
      family: 'codex',
      configured: settings.OPENAI_API_KEY !== undefined || settings.RELAY_CODEX_BASE_URL !== undefined,
      missing: NOT_CONFIGURED,
      models: settings.RELAY_CODEX_MODELS,
      efforts: [],
    },
  ],
  clis: (config) => ({ codex: codexProgram(config.RELAY_CODEX_CLI_PATH) }),
  plugIns: (config, ports, clis) => [
    new CodexProvider({
      endpoint: endpointOf(config),
      notConfigured: NOT_CONFIGURED,
      cli: codexCli(config.RELAY_CODEX_CLI_PATH, clis['codex'], ports.cli.machine),
      models: config.RELAY_CODEX_MODELS,
      gatewayUrl: config.RELAY_GATEWAY_URL,
      cards: ports.cards,
      sandbox: ports.cli,
      history: ports.history,
      threads: ports.codexThreads,
      usage: ports.usage,
      cliEnv: ports.childEnv,
      logger: ports.logger,
    }),
  ],
});

/** The compatible endpoint with its key when one is set, else OpenAI's API with OpenAI's key; undefined without either. */
function endpointOf(config: Pick<Config, 'OPENAI_API_KEY' | 'RELAY_CODEX_BASE_URL' | 'RELAY_CODEX_API_KEY'>): CodexProviderOptions['endpoint'] {
  if (config.RELAY_CODEX_BASE_URL !== undefined) return { baseUrl: config.RELAY_CODEX_BASE_URL, apiKey: config.RELAY_CODEX_API_KEY };
  if (config.OPENAI_API_KEY !== undefined) return { baseUrl: OPENAI_API, apiKey: config.OPENAI_API_KEY };
  return undefined;
}

/** The targets of the CLI's platform packages (@openai/codex-<platform>-<arch>), as Codex's SDK finds them. */
const TARGETS: Readonly<Record<string, string>> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

/**
 * The CLI configured, else the one Codex's SDK brings for this platform (its CLI package's platform package), as the
 * sandbox is asked for it; the binary's folder holds what it runs beside it (its helpers, rg).
 */
function codexProgram(configured: string | undefined): CliProgram {
  if (configured !== undefined) return { path: configured };
  const platform = `${process.platform}-${process.arch}`;
  const folder = `vendor/${TARGETS[platform] ?? platform}`;
  return { package: `@openai/codex-${platform}`, via: ['@openai/codex-sdk', '@openai/codex'], file: `${folder}/bin/codex`, folder };
}

/** The CLI the sandbox found (`machine`: where it looked), or why there is none. */
function codexCli(configured: string | undefined, found: CliLocation | undefined, machine: string): CodexProviderOptions['cli'] {
  if (found !== undefined) return { path: found.path, folder: found.folder, reason: '' };
  if (configured !== undefined) return { path: undefined, reason: `the Codex CLI ${configured} is not executable ${machine} (RELAY_CODEX_CLI_PATH)` };
  return {
    path: undefined,
    reason: `the Codex CLI (@openai/codex-${process.platform}-${process.arch}) is not installed ${machine}; set RELAY_CODEX_CLI_PATH to a Codex CLI`,
  };
}
