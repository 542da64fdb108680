/**
 * GitHub Copilot (relay_tool.md, the Copilot rules: dotted model ids, COPILOT_MODEL_UNAVAILABLE), run by the official
 * SDK (copilot-provider.ts): with GitHub's token (COPILOT_GITHUB_TOKEN), or bring your own key, an OpenAI-compatible
 * endpoint (RELAY_COPILOT_BASE_URL). Unavailable, with why, without either, without the CLI's runtime, or without
 * the sandbox it runs in.
 */
import type { CliLocation, CliProgram } from '../../../app/tasks/cli-sandbox.ts';
import { defineProvider } from '../define-provider.ts';
import { CopilotProvider, type CopilotProviderOptions } from './copilot-provider.ts';

export const copilotDefinition = defineProvider({
  folder: 'copilot',
  env: ['COPILOT_GITHUB_TOKEN', 'RELAY_COPILOT_BASE_URL', 'RELAY_COPILOT_API_KEY', 'RELAY_COPILOT_CLI_PATH', 'RELAY_COPILOT_MODELS'],
  list: (settings) => [
    {
      id: 'copilot',
      name: 'Copilot',
      family: 'copilot',
      configured: settings.COPILOT_GITHUB_TOKEN !== undefined || settings.RELAY_COPILOT_BASE_URL !== undefined,
      missing: 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN), nor a bring-your-own-key endpoint (RELAY_COPILOT_BASE_URL)',
      models: settings.RELAY_COPILOT_MODELS ?? [],
      efforts: [],
    },
  ],
  clis: (config) => ({ runtime: copilotProgram(config.RELAY_COPILOT_CLI_PATH) }),
  plugIns: (config, ports, clis) => [
    new CopilotProvider({
      token: config.COPILOT_GITHUB_TOKEN,
      byok: config.RELAY_COPILOT_BASE_URL === undefined ? undefined : { baseUrl: config.RELAY_COPILOT_BASE_URL, apiKey: config.RELAY_COPILOT_API_KEY },
      runtime: copilotRuntime(config.RELAY_COPILOT_CLI_PATH, clis['runtime'], ports.cli.machine),
      models: config.RELAY_COPILOT_MODELS ?? [],
      gatewayUrl: config.RELAY_GATEWAY_URL,
      cards: ports.cards,
      sandbox: ports.cli,
      history: ports.history,
      usage: ports.usage,
      runtimeEnv: ports.childEnv,
      commandEnv: ports.commandEnv,
      logger: ports.logger,
    }),
  ],
});

/**
 * The CLI configured, else the runtime the SDK's package for this platform ships, as the sandbox is asked for it; the
 * package's folder is what the sandbox shows it read-only.
 */
export function copilotProgram(configured: string | undefined): CliProgram {
  if (configured !== undefined) return { path: configured };
  const platform = `${process.platform}-${process.arch}`;
  return { package: `@github/copilot-sdk-${platform}`, file: `prebuilds/${platform}/copilot-runtime`, folder: '.' };
}

/** The runtime the sandbox found (`machine`: where it looked), or why there is none. */
export function copilotRuntime(configured: string | undefined, found: CliLocation | undefined, machine: string): CopilotProviderOptions['runtime'] {
  if (found !== undefined) return { path: found.path, folder: found.folder, reason: '' };
  if (configured !== undefined) return { path: undefined, reason: `the Copilot CLI ${configured} is not executable ${machine} (RELAY_COPILOT_CLI_PATH)` };
  return {
    path: undefined,
    reason: `the Copilot runtime (@github/copilot-sdk-${process.platform}-${process.arch}) is not installed ${machine}, or not executable; set RELAY_COPILOT_CLI_PATH to a Copilot CLI`,
  };
}
