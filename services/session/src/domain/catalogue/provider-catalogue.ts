/**
 * The providers a session can run on, as the rules see them (decisions.md, Providers). The list comes
 * through the ProviderCatalogue port: from configuration today, from discovery where a provider has it.
 */

/** Which rules a provider follows: its family decides billing switches, Claude-only settings and model-id style. */
export type ProviderFamily = 'script' | 'openai' | 'claude' | 'copilot' | 'codex' | 'deepseek' | 'image' | 'acp';

/** One provider as relay_info shows it. */
export interface ProviderInfo {
  id: string;
  /** What the agent and the user read, e.g. "Copilot", "Claude API". */
  name: string;
  family: ProviderFamily;
  available: boolean;
  /** Why it is not available; '' when it is. */
  reason: string;
  /** The provider's own code for why it is not available (e.g. CLAUDE_API_CAP_REACHED); '' when none. */
  reasonCode: string;
  defaultModel: string;
  models: string[];
  /** False while the model list is unknown (discovery has not run or failed): models go on unchecked. */
  modelsKnown: boolean;
  efforts: string[];
}

/** The provider a fresh relay and a user without a provider start on. */
export const DEFAULT_PROVIDER = 'script';

/** The provider of sessions an MCP client the user runs holds: it never runs turns here. */
export const EXTERNAL_PROVIDER = 'external';

/** The two billings of a Claude session that send with `provider` switches between. */
export const CLAUDE_BILLINGS: Readonly<Record<string, string>> = { claude: 'subscription', 'claude-api': 'API key' };

/** Claude Cloud works on a clone of a repository instead of a folder. */
export const CLOUD_PROVIDER = 'claude-cloud';

/** Whether auto_compact_window takes effect on this family. */
export function windowApplies(family: ProviderFamily): boolean {
  return family === 'claude' || family === 'deepseek';
}

/** Whether the thinking settings take effect on this family (DeepSeek always thinks). */
export function thinkingApplies(family: ProviderFamily): boolean {
  return family === 'claude';
}

/**
 * Whether a new folder restarts the session's worker. The script agent reads its folder at each turn, so
 * it never needs a restart; Claude Cloud has no folder.
 */
export function restartsForFolder(provider: ProviderInfo): boolean {
  return provider.family !== 'script' && provider.id !== CLOUD_PROVIDER;
}

/** The provider with this id, if the relay knows it. */
export function findProvider(providers: readonly ProviderInfo[], id: string): ProviderInfo | undefined {
  return providers.find((provider) => provider.id === id);
}
