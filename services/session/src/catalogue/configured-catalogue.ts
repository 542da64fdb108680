import type { ProviderCatalogue, ProviderFamily, ProviderInfo } from '../domain/provider-catalogue.ts';

/** The configuration the catalogue reads (a slice of Config, so tests pass only what they need). */
export interface CatalogueSettings {
  RELAY_OPENAI_BASE_URL?: string | undefined;
  RELAY_OPENAI_MODELS?: string[] | undefined;
  CLAUDE_CODE_OAUTH_TOKEN?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
  RELAY_CLAUDE_MODELS?: string[] | undefined;
  COPILOT_GITHUB_TOKEN?: string | undefined;
  RELAY_COPILOT_MODELS?: string[] | undefined;
  DEEPSEEK_API_KEY?: string | undefined;
  RELAY_DEEPSEEK_MODELS?: string[] | undefined;
  OPENAI_API_KEY?: string | undefined;
}

const CLAUDE_EFFORTS = ['low', 'medium', 'high'];

/** One row of the provider table: what it is and whether (and why not) it is set up. */
interface ProviderRow {
  id: string;
  name: string;
  family: ProviderFamily;
  configured: boolean;
  /** What is missing when it is not configured. */
  missing: string;
  /** undefined: the list is not known until discovery. */
  models: string[] | undefined;
  efforts: string[];
}

/**
 * The provider catalogue from configuration (decisions.md, Providers): every provider is listed; one is
 * available when it is configured and this relay can run its turns (`canRun`, the turn runtime's
 * registry). Discovery of model lists (GET /v1/models) comes in behind the same port.
 */
export class ConfiguredCatalogue implements ProviderCatalogue {
  readonly #rows: ProviderRow[];

  constructor(
    settings: CatalogueSettings,
    private readonly canRun: (providerId: string) => boolean = (providerId) => providerId === 'script',
  ) {
    const claudeModels = settings.RELAY_CLAUDE_MODELS ?? [];
    const claudeCode = settings.CLAUDE_CODE_OAUTH_TOKEN !== undefined;
    this.#rows = [
      { id: 'script', name: 'Script', family: 'script', configured: true, missing: '', models: ['script-1'], efforts: [] },
      {
        id: 'openai',
        name: 'OpenAI-compatible',
        family: 'openai',
        configured: settings.RELAY_OPENAI_BASE_URL !== undefined,
        missing: 'no OpenAI-compatible endpoint configured (RELAY_OPENAI_BASE_URL)',
        models: settings.RELAY_OPENAI_MODELS,
        efforts: [],
      },
      {
        id: 'claude',
        name: 'Claude',
        family: 'claude',
        configured: claudeCode,
        missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
        models: claudeModels,
        efforts: CLAUDE_EFFORTS,
      },
      {
        id: 'claude-api',
        name: 'Claude API',
        family: 'claude',
        configured: settings.ANTHROPIC_API_KEY !== undefined,
        missing: 'no Anthropic API key configured (ANTHROPIC_API_KEY)',
        models: claudeModels,
        efforts: CLAUDE_EFFORTS,
      },
      {
        id: 'claude-cloud',
        name: 'Claude Cloud',
        family: 'claude',
        configured: claudeCode,
        missing: 'Claude Code credentials not configured (CLAUDE_CODE_OAUTH_TOKEN)',
        models: claudeModels,
        efforts: CLAUDE_EFFORTS,
      },
      {
        id: 'copilot',
        name: 'Copilot',
        family: 'copilot',
        configured: settings.COPILOT_GITHUB_TOKEN !== undefined,
        missing: 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN)',
        models: settings.RELAY_COPILOT_MODELS ?? [],
        efforts: [],
      },
      {
        id: 'deepseek',
        name: 'DeepSeek',
        family: 'deepseek',
        configured: settings.DEEPSEEK_API_KEY !== undefined,
        missing: 'no DeepSeek API key configured (DEEPSEEK_API_KEY)',
        models: settings.RELAY_DEEPSEEK_MODELS ?? [],
        efforts: [],
      },
      {
        id: 'openai-image',
        name: 'OpenAI Image',
        family: 'image',
        configured: settings.OPENAI_API_KEY !== undefined,
        missing: 'no OpenAI API key configured (OPENAI_API_KEY)',
        models: [],
        efforts: [],
      },
    ];
  }

  async providers(): Promise<ProviderInfo[]> {
    return this.#rows.map((row) => {
      const runs = this.canRun(row.id);
      const reason = !row.configured ? row.missing : runs ? '' : `this relay cannot run ${row.name} sessions yet`;
      return {
        id: row.id,
        name: row.name,
        family: row.family,
        available: row.configured && runs,
        reason,
        reasonCode: reason === '' ? '' : `${row.id.toUpperCase().replace(/-/g, '_')}_${row.configured ? 'NOT_RUNNABLE' : 'NOT_CONFIGURED'}`,
        defaultModel: row.models?.[0] ?? '',
        models: [...(row.models ?? [])],
        modelsKnown: row.models !== undefined,
        efforts: [...row.efforts],
      };
    });
  }
}
