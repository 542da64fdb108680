/**
 * OpenAI-compatible chat endpoints (decisions.md, Providers): "openai" (RELAY_OPENAI_BASE_URL) and one provider per
 * RELAY_OPENAI_ENDPOINTS entry; each model list configured, else discovered from GET {baseUrl}/models at start.
 */
import type { Config } from '../../../config.ts';
import { defineProvider, type ProviderPorts } from '../define-provider.ts';
import { OpenAIProvider } from './openai-provider.ts';

/** An OpenAI-compatible plug-in (deepseek's too). */
export function openAIPlugIn(
  config: Config,
  ports: ProviderPorts,
  endpoint: { id: string; baseUrl: string; apiKey: string | undefined; models: string[] | undefined; prices: OpenAIPrices },
): OpenAIProvider {
  return new OpenAIProvider({
    id: endpoint.id,
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    gatewayUrl: config.RELAY_GATEWAY_URL,
    models: endpoint.models,
    history: ports.history,
    usage: ports.usage,
    ...(endpoint.prices === undefined ? {} : { prices: endpoint.prices }),
    commands: { tasks: ports.tasks, cards: ports.cards, logger: ports.logger },
  });
}

type OpenAIPrices = Config['RELAY_OPENAI_PRICES'];

export const openAIDefinition = defineProvider({
  folder: 'openai',
  env: ['RELAY_OPENAI_BASE_URL', 'RELAY_OPENAI_MODELS', 'RELAY_OPENAI_API_KEY', 'RELAY_OPENAI_PRICES', 'RELAY_OPENAI_ENDPOINTS'],
  list: (settings) => [
    {
      id: 'openai',
      name: 'OpenAI-compatible',
      family: 'openai',
      configured: settings.RELAY_OPENAI_BASE_URL !== undefined,
      missing: 'no OpenAI-compatible endpoint configured (RELAY_OPENAI_BASE_URL)',
      models: settings.RELAY_OPENAI_MODELS,
      efforts: [],
    },
    ...(settings.RELAY_OPENAI_ENDPOINTS ?? []).map((endpoint) => ({
      id: endpoint.id,
      name: endpoint.name ?? endpoint.id,
      family: 'openai' as const,
      configured: true,
      missing: '',
      models: endpoint.models,
      efforts: [],
    })),
  ],
  plugIns: (config, ports) => [
    ...(config.RELAY_OPENAI_BASE_URL === undefined
      ? []
      : [
          openAIPlugIn(config, ports, {
            id: 'openai',
            baseUrl: config.RELAY_OPENAI_BASE_URL,
            apiKey: config.RELAY_OPENAI_API_KEY,
            models: config.RELAY_OPENAI_MODELS,
            prices: config.RELAY_OPENAI_PRICES,
          }),
        ]),
    ...config.RELAY_OPENAI_ENDPOINTS.map((endpoint) =>
      openAIPlugIn(config, ports, { ...endpoint, apiKey: endpoint.apiKey, models: endpoint.models, prices: endpoint.prices }),
    ),
  ],
  prices: (config) => ({
    openai: config.RELAY_OPENAI_PRICES,
    ...Object.fromEntries(config.RELAY_OPENAI_ENDPOINTS.map((endpoint) => [endpoint.id, endpoint.prices])),
  }),
});
