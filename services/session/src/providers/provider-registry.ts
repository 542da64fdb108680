import type { Availability, Provider } from './provider.ts';

/** The providers this relay can run turns with, by provider id. */
export class ProviderRegistry {
  readonly #providers: ReadonlyMap<string, Provider>;

  constructor(providers: readonly Provider[]) {
    this.#providers = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /** The provider for this id, or undefined when this relay has no plug-in for it. */
  get(id: string): Provider | undefined {
    return this.#providers.get(id);
  }

  /** Whether turns of sessions on this provider can start here now (available, and not held by a usage limit). */
  canRun(id: string): boolean {
    const provider = this.#providers.get(id);
    return provider !== undefined && provider.availability().available && provider.holdsTurns?.() !== true;
  }

  /** The provider's own availability; undefined when this relay has no plug-in for it. */
  availability(id: string): Availability | undefined {
    return this.#providers.get(id)?.availability();
  }

  /** Steers text into the session's running turn when its provider steers and runs it here; false otherwise. */
  steer(providerId: string, sessionId: string, text: string): boolean {
    const provider = this.#providers.get(providerId);
    return provider?.canSteer === true && provider.steer !== undefined && provider.steer(sessionId, text);
  }
}
