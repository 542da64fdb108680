/**
 * The provider plug-ins this relay's configuration sets up (decisions.md, Providers): the script agent (unless
 * RELAY_SCRIPT_PROVIDER is off), one OpenAI-compatible provider per configured endpoint (openai, deepseek, and
 * RELAY_OPENAI_ENDPOINTS), and Claude Code billed to the subscription (claude) or the API key (claude-api).
 */
import type { Logger } from '@relay/telemetry';
import { openAIPrices, type Config } from '../../config.ts';
import type { UsageLedger } from '../../app/usage/ports.ts';
import type { BackgroundTaskStarter } from '../../app/tasks/background-task-starter.ts';
import type { CommandSandbox } from '../../app/tasks/command-sandbox.ts';
import type { ClaudeSessionStates } from '../../app/turns/claude-session-states.ts';
import { ClaudeProvider, type QueryFn } from './claude/claude-provider.ts';
import { findClaudeExecutable } from './claude/claude-executable.ts';
import type { SubagentTaskLog } from './claude/turn-subagents.ts';
import { OpenAIProvider } from './openai/openai-provider.ts';
import type { ConversationHistory, Provider } from '../../app/turns/provider.ts';
import type { QuestionCards } from '../../app/turns/question-cards.ts';
import { ScriptProvider } from './script/script-provider.ts';

export interface ProviderPorts {
  cards: QuestionCards;
  /** Background shell tasks, and (for Claude Code) sub-agents kept as tasks. */
  tasks: BackgroundTaskStarter & SubagentTaskLog;
  /** Where agents' CLIs (Claude Code) run. */
  sandbox: CommandSandbox;
  history: ConversationHistory;
  usage: UsageLedger;
  claudeStates: ClaudeSessionStates;
  claudeQuery: QueryFn;
  /** Whether Claude Code's session is on this machine to resume (its transcript, for the folder). */
  claudeTranscripts: (resumeId: string, cwd: string) => Promise<boolean>;
  /** The environment Claude Code starts from, without credentials. */
  childEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

export function configuredProviders(config: Config, ports: ProviderPorts): Provider[] {
  const gatewayUrl = config.RELAY_GATEWAY_URL;
  const prices = openAIPrices(config);
  const openAI = (id: string, baseUrl: string, apiKey: string | undefined, models: string[] | undefined) =>
    new OpenAIProvider({
      id,
      baseUrl,
      apiKey,
      gatewayUrl,
      models,
      history: ports.history,
      usage: ports.usage,
      ...(prices[id] === undefined ? {} : { prices: prices[id] }),
      commands: { tasks: ports.tasks, cards: ports.cards, logger: ports.logger },
    });
  const executable = findClaudeExecutable(config.RELAY_CLAUDE_EXECUTABLE);
  const claude = {
    executable,
    models: config.RELAY_CLAUDE_MODELS ?? [],
    gatewayUrl,
    cards: ports.cards,
    tasks: ports.tasks,
    sandbox: ports.sandbox,
    states: ports.claudeStates,
    usage: ports.usage,
    logger: ports.logger,
    baseEnv: ports.childEnv,
    query: ports.claudeQuery,
    hasTranscript: ports.claudeTranscripts,
    history: ports.history,
  };
  return [
    // Off, the relay has no plug-in for it: a script session's turn ends as an error, and the catalogue says why.
    ...(config.RELAY_SCRIPT_PROVIDER === 'off' ? [] : [new ScriptProvider({ gatewayUrl, cards: ports.cards, logger: ports.logger, tasks: ports.tasks })]),
    ...(config.RELAY_OPENAI_BASE_URL === undefined ? [] : [openAI('openai', config.RELAY_OPENAI_BASE_URL, config.RELAY_OPENAI_API_KEY, config.RELAY_OPENAI_MODELS)]),
    ...config.RELAY_OPENAI_ENDPOINTS.map((endpoint) => openAI(endpoint.id, endpoint.baseUrl, endpoint.apiKey, endpoint.models)),
    ...(config.DEEPSEEK_API_KEY === undefined ? [] : [openAI('deepseek', config.RELAY_DEEPSEEK_BASE_URL, config.DEEPSEEK_API_KEY, config.RELAY_DEEPSEEK_MODELS)]),
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
}

/**
 * Each provider's model list at start: configured, else discovered (at most `timeoutMs` each); a
 * provider whose discovery fails keeps an unknown list, and its models go on unchecked.
 */
export async function discoverModelLists(providers: readonly Provider[], logger: Logger, timeoutMs = 5_000): Promise<Map<string, string[] | undefined>> {
  const lists = await Promise.all(
    providers.map(async (provider) => {
      if (!provider.availability().available) return [provider.id, undefined] as const;
      const models = await provider.listModels(AbortSignal.timeout(timeoutMs)).catch((error: unknown) => {
        logger.warn({ err: error, provider: provider.id }, 'could not discover the provider’s models; they stay unknown');
        return undefined;
      });
      return [provider.id, models] as const;
    }),
  );
  return new Map(lists);
}
