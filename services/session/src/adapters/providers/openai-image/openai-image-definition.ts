/** OpenAI's image chats (decisions.md, Providers): listed so create_session can refuse them by name; never run here. */
import { defineProvider } from '../define-provider.ts';

export const openAIImageDefinition = defineProvider({
  folder: 'openai-image',
  env: ['OPENAI_API_KEY'],
  list: (settings) => [
    {
      id: 'openai-image',
      name: 'OpenAI Image',
      family: 'image',
      configured: settings.OPENAI_API_KEY !== undefined,
      missing: 'no OpenAI API key configured (OPENAI_API_KEY)',
      models: [],
      efforts: [],
    },
  ],
});
