/**
 * relay_tool as the script agent calls it: through the gateway's MCP endpoint with the session's own token
 * (../gateway-mcp.ts), like any agent, never around the gateway.
 */
import { TurnFailed } from '../../../app/turns/provider.ts';
import { textsOf, type GatewayMcp } from '../gateway-mcp.ts';

/**
 * Calls relay_tool with `input` and returns its result: the JSON the tool answered (a refusal included, as
 * `{ ok: false, … }`). Throws TurnFailed when the gateway cannot be reached or answers with a protocol error, and the
 * signal's reason once it aborts.
 */
export async function callRelayTool(mcp: GatewayMcp, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  try {
    return resultValue(await mcp.call('relay_tool', input, signal));
  } catch (error) {
    signal.throwIfAborted();
    throw new TurnFailed(`relay_tool failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** The tool's answer: its first text item parsed as JSON (or the text itself), else the content as given. */
function resultValue(content: unknown): unknown {
  const text = textsOf(content)[0];
  if (text === undefined) return content;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
