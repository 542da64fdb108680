/**
 * relay_tool as the script agent calls it: through the gateway's MCP endpoint with the session's
 * own token, like any agent, never around the gateway.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TurnFailed } from '../../../app/turns/provider.ts';

const TOOL_NAME = 'relay_tool';
/**
 * send and wait may hold a call for up to an hour (the longest Longest wait); the gateway's progress
 * notifications reset this, and the turn's own signal (stop, Max turn duration) ends it sooner.
 */
const TOOL_TIMEOUT_MS = 65 * 60_000;

/** One turn's MCP connection to the gateway. */
export class McpRelayTool {
  readonly #url: URL;
  readonly #token: string;
  #client: Client | undefined;

  constructor(gatewayUrl: string, token: string) {
    this.#url = new URL('/mcp', gatewayUrl);
    this.#token = token;
  }

  /**
   * Calls relay_tool with `input` and returns its result: the JSON the tool answered (a refusal
   * included, as `{ ok: false, … }`). Throws TurnFailed when the gateway cannot be reached or
   * answers with a protocol error, and the signal's reason once it aborts.
   */
  async call(input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    try {
      const client = await this.#connect(signal);
      const result = await client.callTool({ name: TOOL_NAME, arguments: input }, undefined, {
        signal,
        timeout: TOOL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        // Asking for progress is what makes the gateway send it, which keeps the call alive.
        onprogress: () => undefined,
      });
      return resultValue(result.content);
    } catch (error) {
      signal.throwIfAborted();
      throw new TurnFailed(`relay_tool failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Closes the connection, if one was opened. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(signal: AbortSignal): Promise<Client> {
    if (this.#client) return this.#client;
    // Loaded on first use: the SDK costs about a second of start-up that a relay without script turns need not pay.
    const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    const transport = new StreamableHTTPClientTransport(this.#url, {
      requestInit: { headers: { Authorization: `Bearer ${this.#token}` } },
    });
    const client = new Client({ name: 'relay-script-agent', version: '1.0.0' });
    await client.connect(transport, { signal });
    this.#client = client;
    return client;
  }
}

/** The tool's answer: its first text item parsed as JSON (or the text itself), else the content as given. */
function resultValue(content: unknown): unknown {
  const items = Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : [];
  const text = items.find((item) => item.type === 'text' && typeof item.text === 'string')?.text;
  if (typeof text !== 'string') return content;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
