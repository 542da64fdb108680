// An Anthropic Messages API on loopback for the real Claude Code (the Claude Agent SDK's binary), so the e2e suites
// run it with no credentials and no network. Streamed requests that carry relay_tool are the turn's: the suite's
// `answer` writes the model's events. Claude Code's side questions (titles and the like) get a short fixed answer.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnthropicApi {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  /** The model's server-sent events for one of the turn's requests. */
  answer: (body: any) => string[] | Promise<string[]>;
  /** Sees each of the turn's requests before it is answered. */
  onTurnRequest?: (body: any, request: IncomingMessage) => void;
}

/** One server-sent event of the Messages API's stream. */
export function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

export async function startFakeAnthropicApi(options: FakeAnthropicOptions): Promise<FakeAnthropicApi> {
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (request.method === 'POST' && request.url?.startsWith('/v1/messages') && body.stream === true) {
        if ((body.tools ?? []).some((tool: any) => tool.name === 'mcp__relay__relay_tool')) options.onTurnRequest?.(body, request);
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const event of await options.answer(body)) response.write(event);
        response.end();
        return;
      }
      if (request.method === 'POST' && request.url?.startsWith('/v1/messages')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: 'msg_side',
            type: 'message',
            role: 'assistant',
            model: body.model,
            content: [{ type: 'text', text: 'Side answer' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 5, output_tokens: 2 },
          }),
        );
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The environment that runs the real Claude Code against `api` with an API key, in its own config folder, and nothing else. */
export function claudeCodeEnv(api: FakeAnthropicApi, configDir: string): Record<string, string> {
  return {
    RELAY_AGENT_SESSIONS: 'on',
    ANTHROPIC_API_KEY: 'sk-ant-api-test-key',
    ANTHROPIC_BASE_URL: api.url,
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

async function readBody(request: IncomingMessage): Promise<any> {
  let text = '';
  for await (const part of request) text += part;
  return text === '' ? {} : JSON.parse(text);
}
