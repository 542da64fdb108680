/**
 * Claude Cloud (relay_tool.md, By provider): a cloud session on a clone of `repo` at `branch` instead of a folder,
 * run by Anthropic's Managed Agents API (claude-cloud-provider.ts) with the Anthropic API key, the agent and the
 * cloud environment configured here. Unavailable, with what is missing, without them.
 */
import { defineProvider } from '../define-provider.ts';
import { CLAUDE_EFFORTS } from '../claude/claude-definition.ts';
import { ClaudeCloudProvider, claudeCloudMissing } from './claude-cloud-provider.ts';

export const claudeCloudDefinition = defineProvider({
  folder: 'claude-cloud',
  env: [
    'ANTHROPIC_API_KEY',
    'RELAY_CLAUDE_CLOUD_AGENT_ID',
    'RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID',
    'RELAY_CLAUDE_CLOUD_GITHUB_TOKEN',
    'RELAY_CLAUDE_CLOUD_BUDGET_USD',
    'RELAY_CLAUDE_CLOUD_BASE_URL',
    'RELAY_CLAUDE_CLOUD_MCP_URL',
    'RELAY_CLAUDE_MODELS',
  ],
  list: (settings) => [
    {
      id: 'claude-cloud',
      name: 'Claude Cloud',
      family: 'claude',
      configured: claudeCloudMissing(settings) === '',
      missing: claudeCloudMissing(settings),
      models: settings.RELAY_CLAUDE_MODELS ?? [],
      efforts: CLAUDE_EFFORTS,
    },
  ],
  plugIns: (config, ports) => [
    new ClaudeCloudProvider({
      apiKey: config.ANTHROPIC_API_KEY,
      agentId: config.RELAY_CLAUDE_CLOUD_AGENT_ID,
      environmentId: config.RELAY_CLAUDE_CLOUD_ENVIRONMENT_ID,
      githubToken: config.RELAY_CLAUDE_CLOUD_GITHUB_TOKEN,
      budgetUsd: config.RELAY_CLAUDE_CLOUD_BUDGET_USD,
      baseUrl: config.RELAY_CLAUDE_CLOUD_BASE_URL,
      mcpUrl: config.RELAY_CLAUDE_CLOUD_MCP_URL,
      models: config.RELAY_CLAUDE_MODELS ?? [],
      cards: ports.cards,
      states: ports.claudeStates,
      history: ports.history,
      usage: ports.usage,
      logger: ports.logger,
    }),
  ],
});
