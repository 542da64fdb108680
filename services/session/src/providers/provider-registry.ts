import type { Provider } from './provider.ts';

/** The providers this relay can run turns with, by provider id. */
export class ProviderRegistry {
  readonly #providers: ReadonlyMap<string, Provider>;

  constructor(providers: readonly Provider[]) {
    this.#providers = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /** The provider for this id, or undefined when this relay cannot run its turns. */
  get(id: string): Provider | undefined {
    return this.#providers.get(id);
  }

  /** Whether turns of sessions on this provider can run here. */
  canRun(id: string): boolean {
    return this.#providers.has(id);
  }
}
