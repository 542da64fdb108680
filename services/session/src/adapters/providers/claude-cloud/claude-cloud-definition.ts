/**
 * Claude Cloud (relay_tool.md, By provider): a clone of `repo` at `branch` instead of a folder. Listed, not run here
 * yet: no plug-in (issue 41, item 3), so relay_info says this relay cannot run its sessions.
 */
import { defineProvider } from '../define-provider.ts';
import { CLAUDE_EFFORTS } from '../claude/claude-definition.ts';

export const claudeCloudDefinition = defineProvider({
  folder: 'claude-cloud',
  env: ['CLAUDE_CODE_OAUTH_TOKEN', 'RELAY_CLAUDE_MODELS'],
  list: (settings) => [
    {
      id: 'claude-cloud',
      name: 'Claude Cloud',
      family: 'claude',
      configured: settings.CLAUDE_CODE_OAUTH_TOKEN !== undefined,
      missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
      models: settings.RELAY_CLAUDE_MODELS ?? [],
      efforts: CLAUDE_EFFORTS,
    },
  ],
});
