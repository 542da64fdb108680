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

  /**
   * Whether turns of sessions on this provider can run here at all (a plug-in, and available); a turn that
   * cannot is ended as an error. A usage-limit pause is not this: its turns wait (the runner reads the
   * relay-wide pauses, usage ledger).
   */
  canRun(id: string): boolean {
    return this.#providers.get(id)?.availability().available === true;
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
