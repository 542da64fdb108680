import type { ProviderCatalogue } from '../catalogue/ports.ts';
import { buildUsageReport, monthStart, type Allowance, type UsageReport } from '../../domain/usage/usage.ts';
import type { UsageLedger } from './ports.ts';

/** What the usage report reads: the provider list, the ledger, the configured allowances and which providers have prices. */
export interface UsageDeps {
  catalogue: ProviderCatalogue;
  ledger: Pick<UsageLedger, 'totalsSince' | 'pausesAt'>;
  allowances: Readonly<Record<string, Allowance>>;
  /** The OpenAI-compatible providers with prices configured; the others' cost is not tracked. */
  priced: readonly string[];
}

/** usage: every provider's status and meters this month, at `now`. */
export async function getUsage(deps: UsageDeps, now: Date): Promise<UsageReport> {
  const [providers, totals, pauses] = await Promise.all([deps.catalogue.providers(), deps.ledger.totalsSince(monthStart(now)), deps.ledger.pausesAt(now)]);
  return buildUsageReport({ providers, totals, allowances: deps.allowances, pauses, priced: deps.priced, now });
}
