/**
 * GitHub Copilot (relay_tool.md, the Copilot rules: dotted model ids, COPILOT_MODEL_UNAVAILABLE), run by the official
 * SDK (copilot-provider.ts): with GitHub's token (COPILOT_GITHUB_TOKEN), or bring your own key, an OpenAI-compatible
 * endpoint (RELAY_COPILOT_BASE_URL). Unavailable, with why, without either, or without the CLI's runtime.
 */
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
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
  plugIns: (config, ports) => [
    new CopilotProvider({
      token: config.COPILOT_GITHUB_TOKEN,
      byok: config.RELAY_COPILOT_BASE_URL === undefined ? undefined : { baseUrl: config.RELAY_COPILOT_BASE_URL, apiKey: config.RELAY_COPILOT_API_KEY },
      runtime: findRuntime(config.RELAY_COPILOT_CLI_PATH),
      models: config.RELAY_COPILOT_MODELS ?? [],
      cards: ports.cards,
      sandbox: ports.sandbox,
      history: ports.history,
      usage: ports.usage,
      runtimeEnv: ports.childEnv,
      commandEnv: ports.commandEnv,
      logger: ports.logger,
    }),
  ],
});

/** The CLI configured (when executable), else the SDK's runtime package for this platform (when installed); else why not. */
function findRuntime(configured: string | undefined): CopilotProviderOptions['runtime'] {
  if (configured !== undefined) {
    try {
      accessSync(configured, constants.X_OK);
      return { path: configured, reason: '' };
    } catch {
      return { path: undefined, reason: `the Copilot CLI ${configured} is not executable (RELAY_COPILOT_CLI_PATH)` };
    }
  }
  const platformPackage = `@github/copilot-sdk-${process.platform}-${process.arch}`;
  try {
    createRequire(import.meta.url).resolve(`${platformPackage}/package.json`);
    return { path: undefined, reason: '' };
  } catch {
    return { path: undefined, reason: `the Copilot runtime for this machine (${platformPackage}) is not installed; set RELAY_COPILOT_CLI_PATH to a Copilot CLI` };
  }
}
