/** A Claude Cloud session's tool calls as the owner's approval cards: what the card says. */
import type { BetaManagedAgentsAgentMCPToolUseEvent, BetaManagedAgentsAgentToolUseEvent } from '@anthropic-ai/sdk/resources/beta/sessions/events';
import { approvalCardText, type ApprovalCardText } from '../../../app/turns/command-card.ts';
import type { RunnableSession } from '../../../app/turns/turn-store.ts';

/** A tool call a cloud session waits to have confirmed: one of the agent toolset's, or an MCP server's. */
export type ToolUse = BetaManagedAgentsAgentToolUseEvent | BetaManagedAgentsAgentMCPToolUseEvent;

/** What the card says of where a cloud session's tools run. */
const RUNS_IN = "Anthropic's cloud container for this session (a clone of the repository), not this machine";

/** The card for a tool call: a command card for bash, else the tool and its input, with the repository it works on. */
export function toolCard(session: RunnableSession, use: ToolUse): ApprovalCardText | undefined {
  const agent = `Claude Cloud (${session.model})`;
  const where = [`Repository: ${session.repo || '(none)'}`, `Branch: ${session.branch || "(the repository's default)"}`];
  const command = use.type === 'agent.tool_use' && use.name === 'bash' ? use.input['command'] : undefined;
  if (typeof command === 'string' && command.trim() !== '')
    return approvalCardText(`${agent} wants to run a command`, [...where, `Command: ${command}`, `Runs in: ${RUNS_IN}`]);
  const tool = use.type === 'agent.mcp_tool_use' ? `${use.mcp_server_name}/${use.name}` : use.name;
  return approvalCardText(`${agent} wants to use ${tool}`, [...where, `Input: ${JSON.stringify(use.input)}`, `Runs in: ${RUNS_IN}`]);
}
