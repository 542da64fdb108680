/**
 * The gateway's tools as a chat-completions model sees them: listed from the gateway's MCP endpoint with the session's
 * token (tools/list) and called there (../gateway-mcp.ts), never around the gateway.
 */
import { textsOf, type GatewayMcp } from '../gateway-mcp.ts';

/** A tool as chat-completions `tools` take it. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The gateway's tools, their JSON schemas as function parameters. */
export async function functionTools(mcp: GatewayMcp, signal: AbortSignal): Promise<FunctionTool[]> {
  return (await mcp.tools(signal)).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

/** Calls a tool and returns its text content (a refusal's too: the model reads it). */
export async function callForText(mcp: GatewayMcp, name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<string> {
  return textsOf(await mcp.call(name, input, signal)).join('\n');
}
