/**
 * Agents that speak the Agent Client Protocol (RELAY_ACP_AGENTS): each configured agent is its own provider id, run by
 * the one ACP plug-in (acp-provider.ts). Unavailable, with why, while its program is not found or no sandbox can be had.
 */
import { delimiter, isAbsolute, join } from 'node:path';
import { defineProvider } from '../define-provider.ts';
import { isExecutable } from '../is-executable.ts';
import { AcpProvider } from './acp-provider.ts';

export const acpDefinition = defineProvider({
  folder: 'acp',
  env: ['RELAY_ACP_AGENTS'],
  list: (settings) =>
    (settings.RELAY_ACP_AGENTS ?? []).map((agent) => ({
      id: agent.id,
      name: agent.name ?? agent.id,
      family: 'acp' as const,
      configured: true,
      missing: '',
      models: agent.models,
      efforts: [],
    })),
  plugIns: (config, ports) =>
    config.RELAY_ACP_AGENTS.map(
      (agent) =>
        new AcpProvider({
          agent,
          program: findProgram(agent.command[0]!, ports.childEnv['PATH'] ?? ''),
          gatewayUrl: config.RELAY_GATEWAY_URL,
          discoveryCwd: config.RELAY_DEFAULT_CWD,
          cards: ports.cards,
          sandbox: ports.cli,
          history: ports.history,
          usage: ports.usage,
          agentEnv: { ...ports.childEnv, ...agent.env },
          commandEnv: ports.commandEnv,
          logger: ports.logger,
        }),
    ),
});

/** The program as an absolute path: as given, or the first on PATH; else why not (naming the variable to fix). */
export function findProgram(program: string, path: string): { path: string; reason: '' } | { path: undefined; reason: string } {
  const candidates = isAbsolute(program)
    ? [program]
    : path
        .split(delimiter)
        .filter((folder) => folder !== '')
        .map((folder) => join(folder, program));
  const found = candidates.find(isExecutable);
  return found === undefined
    ? { path: undefined, reason: `the ACP agent's program ${program} is not ${isAbsolute(program) ? 'executable' : "on this relay's PATH"} (RELAY_ACP_AGENTS)` }
    : { path: found, reason: '' };
}
