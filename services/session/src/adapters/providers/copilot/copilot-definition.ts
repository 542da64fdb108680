/**
 * GitHub Copilot (relay_tool.md, the Copilot rules: dotted model ids, COPILOT_MODEL_UNAVAILABLE), run by the official
 * SDK (copilot-provider.ts): with GitHub's token (COPILOT_GITHUB_TOKEN), or bring your own key, an OpenAI-compatible
 * endpoint (RELAY_COPILOT_BASE_URL). Unavailable, with why, without either, without the CLI's runtime, or without
 * the sandbox it runs in.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineProvider } from '../define-provider.ts';
import { isExecutable } from '../is-executable.ts';
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
  plugIns: (config, ports) => [
    new CopilotProvider({
      token: config.COPILOT_GITHUB_TOKEN,
      byok: config.RELAY_COPILOT_BASE_URL === undefined ? undefined : { baseUrl: config.RELAY_COPILOT_BASE_URL, apiKey: config.RELAY_COPILOT_API_KEY },
      runtime: findCopilotRuntime(config.RELAY_COPILOT_CLI_PATH),
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
 * The CLI configured (when executable), else the runtime the SDK's package for this platform ships (when installed),
 * with the folder the sandbox shows it read-only; else why not.
 */
export function findCopilotRuntime(configured: string | undefined): CopilotProviderOptions['runtime'] {
  if (configured !== undefined) {
    return isExecutable(configured)
      ? { path: configured, folder: dirname(configured), reason: '' }
      : { path: undefined, reason: `the Copilot CLI ${configured} is not executable (RELAY_COPILOT_CLI_PATH)` };
  }
  const platform = `${process.platform}-${process.arch}`;
  const platformPackage = `@github/copilot-sdk-${platform}`;
  try {
    const folder = dirname(createRequire(import.meta.url).resolve(`${platformPackage}/package.json`));
    const path = join(folder, 'prebuilds', platform, 'copilot-runtime');
    if (isExecutable(path)) return { path, folder, reason: '' };
  } catch {
    // Not installed: npm skips an optional package for another platform.
  }
  return {
    path: undefined,
    reason: `the Copilot runtime for this machine (${platformPackage}) is not installed, or not executable; set RELAY_COPILOT_CLI_PATH to a Copilot CLI`,
  };
}
