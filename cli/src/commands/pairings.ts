import { loadClientConfig } from '../config.ts';
import type { Schemas } from '@relay/user-api';
import { GatewayApi } from '../gateway-api.ts';
import type { AgentLevel } from '../parse-command.ts';
import { relayPaths } from '../relay-paths.ts';
import { resolveRelayTarget } from '../relay-target.ts';
import { formatTable } from '../format-table.ts';
import type { ClientIo } from './sessions.ts';
import { showWaiting } from './waiting-line.ts';

function apiFor(io: ClientIo): GatewayApi {
  const target = resolveRelayTarget(loadClientConfig(io.env), relayPaths());
  return new GatewayApi(target.url, target.token);
}

/** `relay pair --code`: a one-time code, and the command to use it with on the other relay. */
export async function runPairingCode(options: { json: boolean }, io: ClientIo): Promise<number> {
  const made = await apiFor(io).createPairingCode();
  io.out.write(
    options.json
      ? `${JSON.stringify(made, null, 2)}\n`
      : `Pairing code for ${made.relay}: ${made.code} (works once, until ${made.expiresAt})\nOn the other relay run: relay pair ${made.url} ${made.code}\n`,
  );
  return 0;
}

/** `relay pair URL CODE`: pairs this relay with the one at URL. */
export async function runPair(options: { url: string; code: string; json: boolean }, io: ClientIo): Promise<number> {
  const end = showWaiting(io.err, `the relay at ${options.url} to take the code`);
  const pairing = await apiFor(io).pair(options.url, options.code).finally(end);
  io.out.write(options.json ? `${JSON.stringify({ pairing }, null, 2)}\n` : `Paired with ${formatPairing(pairing)}\n`);
  return 0;
}

/** `relay pairs`: the paired relays and the accept-prompts switch; with options, changes a level or the switch first. */
export async function runPairs(
  options: { level?: { name: string; level: AgentLevel }; acceptPrompts?: boolean; json: boolean },
  io: ClientIo,
): Promise<number> {
  const api = apiFor(io);
  if (options.level) await api.setPairingLevel(options.level.name, options.level.level);
  if (options.acceptPrompts !== undefined) await api.setAcceptPrompts(options.acceptPrompts);
  const { pairings, acceptPrompts } = await api.pairings();
  if (options.json) {
    io.out.write(`${JSON.stringify({ pairings, acceptPrompts }, null, 2)}\n`);
    return 0;
  }
  const lines =
    pairings.length === 0
      ? ['No paired relays. Pair with: relay pair URL CODE (make the code there with relay pair --code).']
      : [formatPairingsTable(pairings)];
  lines.push(`Accept prompts from other relays' agents: ${acceptPrompts ? 'on' : 'off'}`);
  io.out.write(`${lines.join('\n')}\n`);
  return 0;
}

/** `relay unpair NAME`: removes a pairing on this side. */
export async function runUnpair(options: { name: string; json: boolean }, io: ClientIo): Promise<number> {
  const pairing = await apiFor(io).unpair(options.name);
  io.out.write(options.json ? `${JSON.stringify({ pairing }, null, 2)}\n` : `Unpaired ${pairing.name} (${pairing.url}).\n`);
  return 0;
}

/** One paired relay on one line: name, URL, level, online and version. */
export function formatPairing(pairing: Schemas['Pairing']): string {
  const state = pairing.online ? 'online' : 'offline';
  return `${pairing.name}  ${pairing.url}  agents may: ${pairing.level}  ${state}${pairing.version ? `  ${pairing.version}` : ''}`;
}

/** The paired relays as an aligned table: name, URL, what their agents may do here, online, version. */
export function formatPairingsTable(pairings: readonly Schemas['Pairing'][]): string {
  return formatTable(
    ['NAME', 'URL', 'AGENTS MAY', 'STATE', 'VERSION'],
    pairings.map((pairing) => [pairing.name, pairing.url, pairing.level, pairing.online ? 'online' : 'offline', pairing.version || '-']),
  );
}
