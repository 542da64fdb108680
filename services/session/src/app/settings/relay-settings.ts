import { RELAY_SETTING_RANGES, type RelaySettings } from '../../domain/settings/relay-settings.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { SessionStore } from '../ports.ts';

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

/**
 * Changes the given settings, after checking all of them (REMOTE_RELAY_INVALID_INPUT names the first bad
 * field, and nothing changes); answers the settings now and the fields whose value changed.
 */
export async function updateRelaySettings(store: SessionStore, change: Partial<RelaySettings>): Promise<{ settings: RelaySettings; changed: string[] }> {
  for (const [key, range] of Object.entries(RELAY_SETTING_RANGES)) {
    const value = change[key as keyof typeof RELAY_SETTING_RANGES];
    if (value !== undefined && (!Number.isInteger(value) || value < range.min || value > range.max)) {
      throw invalidInput(`${range.field} must be a whole number of ${range.unit} from ${range.min} to ${range.max}`, { field: range.field });
    }
  }
  const before = await getRelaySettings(store);
  const changed = (Object.keys(change) as (keyof RelaySettings)[]).filter((key) => change[key] !== undefined && change[key] !== before[key]);
  if (changed.length === 0) return { settings: before, changed: [] };
  const settings = await store.updateRelaySettings(Object.fromEntries(changed.map((key) => [key, change[key]])));
  return { settings, changed: changed.map((key) => FIELDS[key]) };
}

// The names the API and the proto give each setting.
const FIELDS: Record<keyof RelaySettings, string> = {
  agentSessionsEnabled: 'agent_sessions_enabled',
  maxWaitSeconds: RELAY_SETTING_RANGES.maxWaitSeconds.field,
  maxTurnMinutes: RELAY_SETTING_RANGES.maxTurnMinutes.field,
  taskQuietMinutes: RELAY_SETTING_RANGES.taskQuietMinutes.field,
};
