/**
 * The MCP server one request is answered by. It is built per request for the authenticated caller,
 * so any replica answers any request (no server-side MCP session).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@relay/telemetry';
import { z } from 'zod';
import type { Caller, PairingOwner, SessionOwner } from '../ports.ts';
import { dispatchToolCall } from '../relay-tool/dispatch.ts';
import { isRelayToolOn } from '../relay-tool/is-relay-tool-on.ts';
import { readRelayState } from '../relay-tool/read-relay-state.ts';
import { LEGACY_TOOL_NAME, RELAY_TOOL_DEFINITION, TOOL_NAME } from '../relay-tool/relay-tool-definition.ts';
import { toCallToolResult } from '../relay-tool/result.ts';
import { RELAY_VERSION } from '../version.ts';

export interface McpDeps {
  relayName: string;
  sessions: SessionOwner;
  pairing: PairingOwner;
  logger: Logger;
}

// Looser than the SDK's CallToolRequestSchema: arguments that are not an object must still reach
// dispatch, so the agent gets REMOTE_RELAY_INVALID_INPUT rather than a protocol error.
const CallToolRequest = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

/** A low-level MCP server offering relay_tool to the agent of `caller`'s session. */
export function createMcpServer(caller: Caller & { sessionId: string }, deps: McpDeps): Server {
  const server = new Server(
    { name: 'relay', title: `Relay ${deps.relayName}`, version: RELAY_VERSION },
    { capabilities: { tools: {} } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { settings, paired } = await readRelayState(deps);
    return { tools: isRelayToolOn(settings, paired) ? [RELAY_TOOL_DEFINITION] : [] };
  });

  const callTool = async (request: z.infer<typeof CallToolRequest>): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    if (name !== TOOL_NAME && name !== LEGACY_TOOL_NAME) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. This server offers ${TOOL_NAME}.`);
    }
    return toCallToolResult(await dispatchToolCall(input ?? {}, caller, deps));
  };
  // Server.setRequestHandler re-validates tools/call against the SDK's strict schema before any
  // handler runs; the base Protocol registration keeps our own validation in charge.
  const register = Protocol.prototype.setRequestHandler as (
    this: Server,
    schema: typeof CallToolRequest,
    handler: (request: z.infer<typeof CallToolRequest>) => Promise<CallToolResult>,
  ) => void;
  register.call(server, CallToolRequest, callTool);
  return server;
}
