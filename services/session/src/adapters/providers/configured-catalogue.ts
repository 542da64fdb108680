import type { ProviderInfo } from '../../domain/catalogue/provider-catalogue.ts';
import type { ProviderCatalogue } from '../../app/catalogue/ports.ts';
import { hasPlanCap, monthStart, planRefusal, type Allowance } from '../../domain/usage/usage.ts';
import type { UsageLedger } from '../../app/usage/ports.ts';
import type { Availability } from '../../app/turns/provider.ts';
import type { ProviderListing, ProviderSettings } from './define-provider.ts';
import { PROVIDER_DEFINITIONS } from './provider-list.ts';

/** The configuration the catalogue reads (a slice of Config, so tests pass only what they need). */
export type CatalogueSettings = ProviderSettings;

/** Every provider's rows, in the order of the one list (provider-list.ts). */
export function providerListings(settings: ProviderSettings): ProviderListing[] {
  return PROVIDER_DEFINITIONS.flatMap((definition) => definition.list(settings));
}

/** What the catalogue asks beyond configuration: the plug-ins' own availability, and the plans' usage. */
export interface CatalogueSources {
  /** A plug-in's availability (binary, credentials); undefined when the relay has no plug-in for the id. */
  availability?: (providerId: string) => Availability | undefined;
  /** The relay's usage accounting, for caps that stop a provider (the Claude API key's monthly cap). */
  usage?: { ledger: Pick<UsageLedger, 'totalsSince'>; allowances: Readonly<Record<string, Allowance>>; now: () => Date };
  /** The lists discovered at start (discoverModelLists), for the rows whose models are not configured. */
  discovered?: ReadonlyMap<string, string[] | undefined>;
}

/** By default only the built-in script agent runs. */
const scriptOnly = (providerId: string): Availability | undefined => (providerId === 'script' ? { available: true, reason: '' } : undefined);

/**
 * The provider catalogue from configuration (decisions.md, Providers), read off the providers' definitions: every
 * provider is listed; one is available when it is configured, this relay has a plug-in for it that can run here, and
 * its plan lets it (the claude-api cap). Model lists are configured or discovered (main.ts passes them in).
 */
export class ConfiguredCatalogue implements ProviderCatalogue {
  readonly #rows: ProviderListing[];
  readonly #sources: CatalogueSources;

  constructor(settings: CatalogueSettings, sources: CatalogueSources = {}) {
    this.#sources = sources;
    this.#rows = providerListings(settings).map((row) => (row.models === undefined ? { ...row, models: sources.discovered?.get(row.id) } : row));
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
  #whyNot(row: ProviderListing, refusal: { reason: string; reasonCode: string } | undefined): { reason: string; reasonCode: string } {
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
      const refusal = planRefusal(
        row,
        totals.find((t) => t.provider === row.id),
        usage.allowances[row.id],
        now,
      );
      if (refusal !== undefined) refusals.set(row.id, refusal);
    }
    return refusals;
  }
}
