/**
 * The gateway's tools as a model sees them: listed from the gateway's MCP endpoint with the
 * session's token (tools/list), and called there, never around the gateway.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** A tool as chat-completions `tools` take it. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** send and wait may hold a call for up to an hour; progress notifications keep it alive. */
const TOOL_TIMEOUT_MS = 65 * 60_000;

/** One turn's MCP connection to the gateway. */
export class McpTools {
  readonly #url: URL;
  readonly #token: string;
  #client: Client | undefined;

  constructor(gatewayUrl: string, token: string) {
    this.#url = new URL('/mcp', gatewayUrl);
    this.#token = token;
  }

  /** The gateway's tools, their JSON schemas as function parameters. */
  async list(signal: AbortSignal): Promise<FunctionTool[]> {
    const client = await this.#connect(signal);
    const { tools } = await client.listTools(undefined, { signal });
    return tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema as Record<string, unknown> },
    }));
  }

  /** Calls a tool and returns its text content (a refusal's too: the model reads it). */
  async call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    const client = await this.#connect(signal);
    const result = await client.callTool({ name, arguments: input }, undefined, {
      signal,
      timeout: TOOL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: () => undefined,
    });
    const items = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
    return items
      .filter((item) => item.type === 'text' && typeof item.text === 'string')
      .map((item) => item.text as string)
      .join('\n');
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #connect(signal: AbortSignal): Promise<Client> {
    if (this.#client) return this.#client;
    const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    const transport = new StreamableHTTPClientTransport(this.#url, { requestInit: { headers: { Authorization: `Bearer ${this.#token}` } } });
    const client = new Client({ name: 'relay-openai-agent', version: '1.0.0' });
    await client.connect(transport, { signal });
    this.#client = client;
    return client;
  }
}
