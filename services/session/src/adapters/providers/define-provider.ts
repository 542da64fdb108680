/**
 * One provider, whole, in one folder under providers/ with one definition: the rows relay_info lists for it (name,
 * family, whether it is configured and what is missing, its models and efforts), the configuration it reads, the
 * plug-ins that run its turns here (each a Provider: availability, model discovery, turns, stop, steering), and
 * what its turns cost. The relay's lists (the catalogue, the plug-ins,
 * discovery, usage's prices) are read off the definitions in provider-list.ts, like relay_tool's actions off
 * defineAction's.
 */
import type { Logger } from '@relay/telemetry';
import type { Config, ModelPriceConfig } from '../../config.ts';
import type { ProviderFamily } from '../../domain/catalogue/provider-catalogue.ts';
import type { UsageLedger } from '../../app/usage/ports.ts';
import type { BackgroundTaskStarter } from '../../app/tasks/background-task-starter.ts';
import type { CliLocation, CliProgram, CliSandbox } from '../../app/tasks/cli-sandbox.ts';
import type { ClaudeSessionStates } from '../../app/turns/claude-session-states.ts';
import type { CodexThreads } from '../../app/turns/codex-threads.ts';
import type { ConversationHistory, Provider } from '../../app/turns/provider.ts';
import type { QuestionCards } from '../../app/turns/question-cards.ts';
import type { QueryFn } from './claude/claude-provider.ts';
import type { SubagentTaskLog } from './claude/turn-subagents.ts';

/** One extra OpenAI-compatible endpoint or ACP agent as the listing sees it (its models undefined until discovery). */
export interface ListedEntry {
  id: string;
  name?: string | undefined;
  models?: string[] | undefined;
}

/**
 * The configuration a listing reads: any part of Config (so tests pass only what they need), the per-entry lists
 * (RELAY_OPENAI_ENDPOINTS, RELAY_ACP_AGENTS) by what the catalogue shows of them.
 */
export type ProviderSettings = Partial<Omit<Config, 'RELAY_OPENAI_ENDPOINTS' | 'RELAY_ACP_AGENTS'>> & {
  RELAY_OPENAI_ENDPOINTS?: ListedEntry[] | undefined;
  RELAY_ACP_AGENTS?: ListedEntry[] | undefined;
};

/** One row of relay_info's provider list: what it is and whether (and why not) it is set up. */
export interface ProviderListing {
  id: string;
  name: string;
  family: ProviderFamily;
  configured: boolean;
  /** What is missing when it is not configured (never a secret). */
  missing: string;
  /** undefined: not configured, so its plug-in's listModels is asked at start (unknown while it cannot say). */
  models: string[] | undefined;
  efforts: string[];
}

/** What the plug-ins are built from besides configuration: the relay's ports. */
export interface ProviderPorts {
  cards: QuestionCards;
  /** Background shell tasks, and (for Claude Code) sub-agents kept as tasks. */
  tasks: BackgroundTaskStarter & SubagentTaskLog;
  /** Where agents' CLIs and the commands they ask for run: bubblewrap on one machine, the command runner on Kubernetes. */
  cli: CliSandbox;
  history: ConversationHistory;
  usage: UsageLedger;
  claudeStates: ClaudeSessionStates;
  claudeQuery: QueryFn;
  codexThreads: CodexThreads;
  /** Whether Claude Code's session is on this machine to resume (its transcript, for the folder). */
  claudeTranscripts: (resumeId: string, cwd: string) => Promise<boolean>;
  /** The environment an agent's CLI starts from, without credentials (config.ts, childProcessEnv). */
  childEnv: Readonly<Record<string, string>>;
  /** The environment a command an agent asks for starts with (config.ts, commandEnv). */
  commandEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

export interface ProviderDefinition {
  /** Its folder under providers/, and what the docs call it. */
  folder: string;
  /** The variables of config.ts it reads (its credentials among them); the docs and the config test read these. */
  env: readonly (keyof Config)[];
  /** Its rows in relay_info, in order, listed whether or not configured (an entry list: one row per entry). */
  list(settings: ProviderSettings): ProviderListing[];
  /**
   * The agents' CLIs its plug-ins start, by a name of its own: located where the sandbox starts them
   * (CliSandbox.locate, at start) and handed to plugIns under the same names.
   */
  clis?(config: Config, ports: ProviderPorts): Readonly<Record<string, CliProgram>>;
  /**
   * The plug-ins this configuration sets up; none: listed, but this relay cannot run its sessions ("NOT_RUNNABLE").
   * `clis`: where each CLI it named lies, undefined where the sandbox has none.
   */
  plugIns?(config: Config, ports: ProviderPorts, clis: Readonly<Record<string, CliLocation | undefined>>): Provider[];
  /** Per provider id, the prices its reported tokens cost (undefined: tokens only, cost not tracked). */
  prices?(config: Config): Record<string, Readonly<Record<string, ModelPriceConfig>> | undefined>;
}

/** Declares a provider (the definition as is; the function gives the list one type, and a place to read). */
export function defineProvider(definition: ProviderDefinition): ProviderDefinition {
  return definition;
}
