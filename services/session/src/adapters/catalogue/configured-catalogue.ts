import type { ProviderFamily, ProviderInfo } from '../../domain/catalogue/provider-catalogue.ts';
import type { ProviderCatalogue } from '../../app/catalogue/ports.ts';
import { hasPlanCap, monthStart, planRefusal, type Allowance } from '../../domain/usage/usage.ts';
import type { UsageLedger } from '../../app/usage/ports.ts';
import type { Availability } from '../../app/turns/provider.ts';

/** One extra OpenAI-compatible endpoint (RELAY_OPENAI_ENDPOINTS), as the catalogue sees it. */
export interface EndpointRow {
  id: string;
  name?: string | undefined;
  /** undefined: not known until discovery. */
  models?: string[] | undefined;
}

/** The configuration the catalogue reads (a slice of Config, so tests pass only what they need). */
export interface CatalogueSettings {
  /** 'off' switches the built-in script agent off (unset: on). */
  RELAY_SCRIPT_PROVIDER?: 'on' | 'off' | undefined;
  RELAY_OPENAI_BASE_URL?: string | undefined;
  RELAY_OPENAI_MODELS?: string[] | undefined;
  RELAY_OPENAI_ENDPOINTS?: EndpointRow[] | undefined;
  CLAUDE_CODE_OAUTH_TOKEN?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
  RELAY_CLAUDE_MODELS?: string[] | undefined;
  COPILOT_GITHUB_TOKEN?: string | undefined;
  RELAY_COPILOT_MODELS?: string[] | undefined;
  DEEPSEEK_API_KEY?: string | undefined;
  RELAY_DEEPSEEK_MODELS?: string[] | undefined;
  OPENAI_API_KEY?: string | undefined;
}

/** What the catalogue asks beyond configuration: the plug-ins' own availability, and the plans' usage. */
export interface CatalogueSources {
  /** A plug-in's availability (binary, credentials); undefined when the relay has no plug-in for the id. */
  availability?: (providerId: string) => Availability | undefined;
  /** The relay's usage accounting, for caps that stop a provider (the Claude API key's monthly cap). */
  usage?: { ledger: Pick<UsageLedger, 'totalsSince'>; allowances: Readonly<Record<string, Allowance>>; now: () => Date };
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

/** By default only the built-in script agent runs. */
const scriptOnly = (providerId: string): Availability | undefined => (providerId === 'script' ? { available: true, reason: '' } : undefined);

/**
 * The provider catalogue from configuration (decisions.md, Providers): every provider is listed; one is
 * available when it is configured, this relay has a plug-in for it that can run here, and its plan
 * lets it (the claude-api cap). Model lists are configured or discovered (main.ts passes them in).
 */
export class ConfiguredCatalogue implements ProviderCatalogue {
  readonly #rows: ProviderRow[];
  readonly #sources: CatalogueSources;

  constructor(settings: CatalogueSettings, sources: CatalogueSources = {}) {
    this.#sources = sources;
    const claudeModels = settings.RELAY_CLAUDE_MODELS ?? [];
    const claudeCode = settings.CLAUDE_CODE_OAUTH_TOKEN !== undefined;
    this.#rows = [
      {
        id: 'script',
        name: 'Script',
        family: 'script',
        configured: settings.RELAY_SCRIPT_PROVIDER !== 'off',
        missing: 'the script agent is switched off on this relay (RELAY_SCRIPT_PROVIDER)',
        models: ['script-1'],
        efforts: [],
      },
      {
        id: 'openai',
        name: 'OpenAI-compatible',
        family: 'openai',
        configured: settings.RELAY_OPENAI_BASE_URL !== undefined,
        missing: 'no OpenAI-compatible endpoint configured (RELAY_OPENAI_BASE_URL)',
        models: settings.RELAY_OPENAI_MODELS,
        efforts: [],
      },
      ...(settings.RELAY_OPENAI_ENDPOINTS ?? []).map(
        (endpoint): ProviderRow => ({
          id: endpoint.id,
          name: endpoint.name ?? endpoint.id,
          family: 'openai',
          configured: true,
          missing: '',
          models: endpoint.models,
          efforts: [],
        }),
      ),
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
    const plan = await this.#planRefusals();
    return this.#rows.map((row) => {
      const { reason, reasonCode } = this.#whyNot(row, plan.get(row.id));
      return {
        id: row.id,
        name: row.name,
        family: row.family,
        available: reason === '',
        reason,
        reasonCode,
        defaultModel: row.models?.[0] ?? '',
        models: [...(row.models ?? [])],
        modelsKnown: row.models !== undefined,
        efforts: [...row.efforts],
      };
    });
  }

  /** The first thing that keeps a provider from running here: configuration, its plug-in, its plan. */
  #whyNot(row: ProviderRow, refusal: { reason: string; reasonCode: string } | undefined): { reason: string; reasonCode: string } {
    const code = row.id.toUpperCase().replace(/-/g, '_');
    if (!row.configured) return { reason: row.missing, reasonCode: `${code}_NOT_CONFIGURED` };
    const plugIn = (this.#sources.availability ?? scriptOnly)(row.id);
    if (plugIn === undefined) return { reason: `this relay cannot run ${row.name} sessions yet`, reasonCode: `${code}_NOT_RUNNABLE` };
    if (!plugIn.available) return { reason: plugIn.reason, reasonCode: `${code}_NOT_RUNNABLE` };
    return refusal ?? { reason: '', reasonCode: '' };
  }

  async #planRefusals(): Promise<Map<string, { reason: string; reasonCode: string }>> {
    const refusals = new Map<string, { reason: string; reasonCode: string }>();
    const usage = this.#sources.usage;
    if (usage === undefined || !hasPlanCap(usage.allowances)) return refusals;
    const now = usage.now();
    const totals = await usage.ledger.totalsSince(monthStart(now));
    for (const row of this.#rows) {
      const refusal = planRefusal(row, totals.find((t) => t.provider === row.id), usage.allowances[row.id], now);
      if (refusal !== undefined) refusals.set(row.id, refusal);
    }
    return refusals;
  }
}
