/**
 * A turn's MCP connection to the gateway, as an agent of ours makes it (the openai-compatible providers, the script
 * agent): the gateway's /mcp with the session's own token, its tools listed and called there, never around it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * send and wait may hold a call for up to an hour (the longest Longest wait); the gateway's progress notifications
 * reset this, and the turn's own signal (stop, Max turn duration) ends it sooner.
 */
const TOOL_TIMEOUT_MS = 65 * 60_000;

/** A tool the gateway lists: its name, description and arguments' JSON Schema. */
export interface GatewayTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One turn's MCP connection to the gateway, opened on first use. */
export class GatewayMcp {
  readonly #url: URL;
  #client: Client | undefined;

  constructor(
    gatewayUrl: string,
    private readonly token: string,
    /** How the connection names its client to the gateway (relay-openai-agent, relay-script-agent). */
    private readonly clientName: string,
  ) {
    this.#url = new URL('/mcp', gatewayUrl);
  }

  /** The gateway's tools. */
  async tools(signal: AbortSignal): Promise<GatewayTool[]> {
    const { tools } = await (await this.#connect(signal)).listTools(undefined, { signal });
    return tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> }));
  }

  /** Calls a tool; answers its result's content as the gateway sent it (a refusal's too: it is a result). */
  async call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const result = await (
      await this.#connect(signal)
    ).callTool({ name, arguments: input }, undefined, {
      signal,
      timeout: TOOL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      // Asking for progress is what makes the gateway send it, which keeps the call alive.
      onprogress: () => undefined,
    });
    return result.content;
  }

  /** Closes the connection, if one was opened. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(signal: AbortSignal): Promise<Client> {
    if (this.#client) return this.#client;
    // Loaded on first use: the SDK costs about a second of start-up that a relay without such turns need not pay.
    const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    const transport = new StreamableHTTPClientTransport(this.#url, { requestInit: { headers: { Authorization: `Bearer ${this.token}` } } });
    const client = new Client({ name: this.clientName, version: '1.0.0' });
    await client.connect(transport, { signal });
    this.#client = client;
    return client;
  }
}

/** The text items of a tool result's content, in order. */
export function textsOf(content: unknown): string[] {
  const items = Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : [];
  return items.filter((item) => item.type === 'text' && typeof item.text === 'string').map((item) => item.text as string);
}
