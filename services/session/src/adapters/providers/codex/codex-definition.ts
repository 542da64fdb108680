/**
 * OpenAI's Codex (provider "codex"), run by its CLI's app-server (codex-provider.ts): with OpenAI's key
 * (OPENAI_API_KEY), or an OpenAI-compatible endpoint that speaks the Responses API (RELAY_CODEX_BASE_URL, its key
 * RELAY_CODEX_API_KEY). Its models are RELAY_CODEX_MODELS, else the endpoint's GET /models. Unavailable, with why,
 * without either, without the CLI, or where no sandbox can be had.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Config } from '../../../config.ts';
import { defineProvider } from '../define-provider.ts';
import { isExecutable } from '../is-executable.ts';
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
  plugIns: (config, ports) => [
    new CodexProvider({
      endpoint: endpointOf(config),
      notConfigured: NOT_CONFIGURED,
      cli: findCli(config.RELAY_CODEX_CLI_PATH),
      models: config.RELAY_CODEX_MODELS,
      gatewayUrl: config.RELAY_GATEWAY_URL,
      cards: ports.cards,
      sandbox: ports.cli,
      history: ports.history,
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

/** The CLI configured (when executable), else the one Codex's SDK brings for this platform (when installed); else why not. */
function findCli(configured: string | undefined): CodexProviderOptions['cli'] {
  if (configured !== undefined) {
    return isExecutable(configured)
      ? { path: configured, folder: dirname(configured), reason: '' }
      : { path: undefined, reason: `the Codex CLI ${configured} is not executable (RELAY_CODEX_CLI_PATH)` };
  }
  const platform = `${process.platform}-${process.arch}`;
  const target = TARGETS[platform];
  const why = `the Codex CLI for this machine (@openai/codex-${platform}) is not installed; set RELAY_CODEX_CLI_PATH to a Codex CLI`;
  if (target === undefined) return { path: undefined, reason: why };
  try {
    // The SDK's package depends on the CLI's, which brings this platform's binary.
    const codex = createRequire(import.meta.resolve('@openai/codex-sdk')).resolve('@openai/codex/package.json');
    const binaries = createRequire(codex).resolve(`@openai/codex-${platform}/package.json`);
    // The binary's folder holds what it runs beside it (its helpers, rg).
    const folder = join(dirname(binaries), 'vendor', target);
    const path = join(folder, 'bin', 'codex');
    return isExecutable(path) ? { path, folder, reason: '' } : { path: undefined, reason: why };
  } catch {
    return { path: undefined, reason: why };
  }
}
