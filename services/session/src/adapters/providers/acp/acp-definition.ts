/**
 * Agents that speak the Agent Client Protocol (RELAY_ACP_AGENTS): each configured agent is its own provider id, run by
 * the one ACP plug-in (acp-provider.ts). Unavailable, with why, while its program is not found or no sandbox can be had.
 */
import { isAbsolute } from 'node:path';
import type { CliLocation } from '../../../app/tasks/cli-sandbox.ts';
import { defineProvider } from '../define-provider.ts';
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
  // Each agent's program, looked for on the PATH its process starts with, where the sandbox starts it.
  clis: (config, ports) =>
    Object.fromEntries(config.RELAY_ACP_AGENTS.map((agent) => [agent.id, { command: agent.command[0]!, search: ports.childEnv['PATH'] ?? '' }])),
  plugIns: (config, ports, clis) =>
    config.RELAY_ACP_AGENTS.map(
      (agent) =>
        new AcpProvider({
          agent,
          program: agentProgram(agent.command[0]!, clis[agent.id], ports.cli.machine),
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

/** The program the sandbox found (absolute), else why not (`machine`: where it looked; naming the variable to fix). */
export function agentProgram(
  program: string,
  found: CliLocation | undefined,
  machine: string,
): { path: string; reason: '' } | { path: undefined; reason: string } {
  return found === undefined
    ? {
        path: undefined,
        reason: `the ACP agent's program ${program} is not ${isAbsolute(program) ? 'executable' : "on the relay's PATH"} ${machine} (RELAY_ACP_AGENTS)`,
      }
    : { path: found.path, reason: '' };
}
