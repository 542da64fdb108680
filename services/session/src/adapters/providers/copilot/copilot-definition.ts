/**
 * GitHub Copilot (relay_tool.md, the Copilot rules: dotted model ids, COPILOT_MODEL_UNAVAILABLE). Listed, not run here
 * yet: no plug-in (issue 41, item 2), so relay_info says this relay cannot run its sessions.
 */
import { defineProvider } from '../define-provider.ts';

export const copilotDefinition = defineProvider({
  folder: 'copilot',
  env: ['COPILOT_GITHUB_TOKEN', 'RELAY_COPILOT_MODELS'],
  list: (settings) => [
    {
      id: 'copilot',
      name: 'Copilot',
      family: 'copilot',
      configured: settings.COPILOT_GITHUB_TOKEN !== undefined,
      missing: 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN)',
      models: settings.RELAY_COPILOT_MODELS ?? [],
      efforts: [],
    },
  ],
});
