/** DeepSeek (decisions.md, Providers): its OpenAI-compatible endpoint with DEEPSEEK_API_KEY. */
import { defineProvider } from '../define-provider.ts';
import { openAIPlugIn } from '../openai/openai-definition.ts';

export const deepSeekDefinition = defineProvider({
  folder: 'deepseek',
  env: ['DEEPSEEK_API_KEY', 'RELAY_DEEPSEEK_MODELS', 'RELAY_DEEPSEEK_PRICES', 'RELAY_DEEPSEEK_BASE_URL'],
  list: (settings) => [
    {
      id: 'deepseek',
      name: 'DeepSeek',
      family: 'deepseek',
      configured: settings.DEEPSEEK_API_KEY !== undefined,
      missing: 'no DeepSeek API key configured (DEEPSEEK_API_KEY)',
      models: settings.RELAY_DEEPSEEK_MODELS ?? [],
      efforts: [],
    },
  ],
  plugIns: (config, ports) =>
    config.DEEPSEEK_API_KEY === undefined
      ? []
      : [
          openAIPlugIn(config, ports, {
            id: 'deepseek',
            baseUrl: config.RELAY_DEEPSEEK_BASE_URL,
            apiKey: config.DEEPSEEK_API_KEY,
            models: config.RELAY_DEEPSEEK_MODELS,
            prices: config.RELAY_DEEPSEEK_PRICES,
          }),
        ],
  prices: (config) => ({ deepseek: config.RELAY_DEEPSEEK_PRICES }),
});
