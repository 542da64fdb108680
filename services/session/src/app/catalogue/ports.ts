import type { ProviderInfo } from '../../domain/catalogue/provider-catalogue.ts';

/** The provider list of this relay. */
export interface ProviderCatalogue {
  /** Every provider this relay knows, configured or not, in the order relay_info shows them. */
  providers(): Promise<ProviderInfo[]>;
}
