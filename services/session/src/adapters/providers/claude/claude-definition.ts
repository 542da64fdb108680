/**
 * Claude Code (decisions.md, Providers), billed to the subscription ("claude", CLAUDE_CODE_OAUTH_TOKEN) or the API key
 * ("claude-api", ANTHROPIC_API_KEY); its CLI runs in the relay's sandbox, which finds it (claude-executable.ts).
 */
import { defineProvider } from '../define-provider.ts';
import { ClaudeProvider } from './claude-provider.ts';
import { claudeExecutable, claudeProgram } from './claude-executable.ts';

/** The efforts a Claude session may be set to. */
export const CLAUDE_EFFORTS = ['low', 'medium', 'high'];

export const claudeDefinition = defineProvider({
  folder: 'claude',
  env: ['CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_API_KEY', 'RELAY_CLAUDE_MODELS', 'RELAY_CLAUDE_EXECUTABLE', 'RELAY_CLAUDE_API_MONTHLY_CAP_USD'],
  list: (settings) => [
    {
      id: 'claude',
      name: 'Claude',
      family: 'claude',
      configured: settings.CLAUDE_CODE_OAUTH_TOKEN !== undefined,
      missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
      models: settings.RELAY_CLAUDE_MODELS ?? [],
      efforts: CLAUDE_EFFORTS,
    },
    {
      id: 'claude-api',
      name: 'Claude API',
      family: 'claude',
      configured: settings.ANTHROPIC_API_KEY !== undefined,
      missing: 'no Anthropic API key configured (ANTHROPIC_API_KEY)',
      models: settings.RELAY_CLAUDE_MODELS ?? [],
      efforts: CLAUDE_EFFORTS,
    },
  ],
  clis: (config) => ({ claude: claudeProgram(config.RELAY_CLAUDE_EXECUTABLE) }),
  plugIns: (config, ports, clis) => {
    const claude = {
      executable: claudeExecutable(config.RELAY_CLAUDE_EXECUTABLE, clis['claude'], ports.cli.machine),
      models: config.RELAY_CLAUDE_MODELS ?? [],
      gatewayUrl: config.RELAY_GATEWAY_URL,
      cards: ports.cards,
      tasks: ports.tasks,
      sandbox: ports.cli,
      states: ports.claudeStates,
      usage: ports.usage,
      logger: ports.logger,
      baseEnv: ports.childEnv,
      query: ports.claudeQuery,
      hasTranscript: ports.claudeTranscripts,
      history: ports.history,
    };
    return [
      new ClaudeProvider('claude', {
        ...claude,
        billing: config.CLAUDE_CODE_OAUTH_TOKEN === undefined ? undefined : { provider: 'claude', oauthToken: config.CLAUDE_CODE_OAUTH_TOKEN },
        missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
      }),
      new ClaudeProvider('claude-api', {
        ...claude,
        billing: config.ANTHROPIC_API_KEY === undefined ? undefined : { provider: 'claude-api', apiKey: config.ANTHROPIC_API_KEY },
        missing: 'no Anthropic API key configured (ANTHROPIC_API_KEY)',
      }),
    ];
  },
});
