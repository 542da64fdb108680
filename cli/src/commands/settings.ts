import { loadClientConfig } from '../config.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi } from '../gateway-api.ts';
import type { RelaySettingsChange } from '../parse-command.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import type { ClientIo } from './sessions.ts';

/** `relay settings`: this relay's settings; with options, changes those first and says what changed. */
export async function runSettings(options: { change: RelaySettingsChange; json: boolean }, io: ClientIo): Promise<number> {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  const api = new GatewayApi(target.url, target.token);
  if (Object.keys(options.change).length === 0) {
    const settings = await api.relaySettings();
    io.out.write(options.json ? `${JSON.stringify(settings, null, 2)}\n` : `${formatSettings(settings)}\n`);
    return 0;
  }
  const updated = await api.updateRelaySettings(options.change);
  const changed = updated.changed.length === 0 ? 'Nothing changed.' : `Changed: ${updated.changed.join(', ')}.`;
  io.out.write(options.json ? `${JSON.stringify(updated, null, 2)}\n` : `${formatSettings(updated.settings)}\n${changed}\n`);
  return 0;
}

/** The settings as Settings → Relays → Agent sessions names them, one a line. */
export function formatSettings(settings: Schemas['RelaySettings']): string {
  return [
    `Agents may start and use sessions on this relay: ${settings.agentSessionsEnabled ? 'on' : 'off'}`,
    `Longest wait per tool call: ${settings.maxWaitSeconds} s`,
    `Max turn duration: ${settings.maxTurnMinutes} min`,
    `A running task counts as quiet after: ${settings.taskQuietMinutes} min without output`,
  ].join('\n');
}
