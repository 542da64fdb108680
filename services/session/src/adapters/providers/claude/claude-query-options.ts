/**
 * The options a Claude turn gives the Claude Agent SDK's query(), built pure so that what the agent
 * is given (the relay as the HTTP MCP server `relay`, its one allowed tool, the credentials of the
 * session's billing and no other) is checked without credentials or a running Claude Code.
 */
import type { McpHttpServerConfig, Options } from '@anthropic-ai/claude-agent-sdk';
import type { RunnableSession } from '../../../app/turns/turn-store.ts';

/** The MCP server name the relay is given to Claude Code under. */
export const RELAY_MCP_SERVER = 'relay';
/** The name Claude's agent sees relay_tool under (spec: mcp__relay__relay_tool). */
export const RELAY_TOOL_FOR_CLAUDE = `mcp__${RELAY_MCP_SERVER}__relay_tool`;

/** The two billings of Claude Code and the one credential each passes to it. */
export type ClaudeBilling = { provider: 'claude'; oauthToken: string } | { provider: 'claude-api'; apiKey: string };

export interface ClaudeQueryInput {
  billing: ClaudeBilling;
  session: Pick<RunnableSession, 'cwd' | 'model' | 'effort' | 'autoCompactWindow' | 'thinkingEnabled' | 'thinkingDisplay'>;
  /** The session worker's bearer token for the gateway's MCP endpoint. */
  token: string;
  gatewayUrl: string;
  /** Claude Code's executable. */
  executable: string;
  /** Claude Code's session id to resume (the conversation so far); undefined for a first turn. */
  resumeId: string | undefined;
  /** The variables of the relay's environment Claude Code may see (PATH, HOME, …), never other credentials. */
  baseEnv: Readonly<Record<string, string | undefined>>;
}

/** Variables of the relay's own environment that would change which account Claude Code bills. */
const CREDENTIAL_VARIABLES = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'];

/**
 * The relay as Claude Code's HTTP MCP server, called with the session's token. Always loaded: relay_tool is in
 * the agent's prompt from the first turn, never deferred behind tool search.
 */
export function relayMcpServer(gatewayUrl: string, token: string): McpHttpServerConfig {
  return { type: 'http', url: new URL('/mcp', gatewayUrl).toString(), headers: { Authorization: `Bearer ${token}` }, alwaysLoad: true };
}

const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** The query() options of one turn, without the host's callbacks (canUseTool, abortController, stderr). */
export function buildClaudeQueryOptions(input: ClaudeQueryInput): Options {
  const { billing, session } = input;
  const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(input.baseEnv).filter(([name]) => !CREDENTIAL_VARIABLES.includes(name)));
  if (billing.provider === 'claude') env['CLAUDE_CODE_OAUTH_TOKEN'] = billing.oauthToken;
  else env['ANTHROPIC_API_KEY'] = billing.apiKey;

  const window = Number(session.autoCompactWindow);
  const thinking: Options['thinking'] =
    session.thinkingEnabled === false
      ? { type: 'disabled' }
      : // The SDK shows thinking summarized or not at all: 'hidden' omits it; 'full' is the most it offers, summarized.
        { type: 'adaptive', display: session.thinkingDisplay === 'hidden' ? 'omitted' : 'summarized' };
  return {
    cwd: session.cwd,
    model: session.model,
    ...(EFFORTS.has(session.effort) ? { effort: session.effort as NonNullable<Options['effort']> } : {}),
    thinking,
    ...(Number.isInteger(window) && window > 0 ? { settings: { autoCompactWindow: window } } : {}),
    mcpServers: { [RELAY_MCP_SERVER]: relayMcpServer(input.gatewayUrl, input.token) },
    // The bearer token goes over stdin, not onto a command line other users of the machine can read.
    mcpServersDelivery: 'initialize',
    allowedTools: [RELAY_TOOL_FOR_CLAUDE],
    // Every other tool asks through canUseTool, which raises the session's question card.
    permissionMode: 'default',
    pathToClaudeCodeExecutable: input.executable,
    env,
    includePartialMessages: true,
    ...(input.resumeId === undefined ? {} : { resume: input.resumeId }),
  };
}
