import type { RelaySettings } from './entities.ts';
import type { SessionStore } from './ports.ts';

/** Stores the configured defaults unless settings exist already; the stored row wins afterwards. */
export async function seedRelaySettings(store: SessionStore, defaults: RelaySettings): Promise<RelaySettings> {
  return store.seedRelaySettings(defaults);
}

/** Reads the relay's settings, which main seeds before serving. */
export async function getRelaySettings(store: SessionStore): Promise<RelaySettings> {
  const settings = await store.findRelaySettings();
  if (settings === undefined) throw new Error('relay settings are missing: seedRelaySettings must run at boot');
  return settings;
}
