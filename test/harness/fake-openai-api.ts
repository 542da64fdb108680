// An OpenAI-compatible chat completions API on loopback, for the `openai` provider (and the endpoints configured
// beside it) with no credentials and no network: it speaks the real wire format (SSE chat.completion.chunk events,
// tool_calls in pieces, the usage chunk that stream_options.include_usage asks for) and lists its models at
// GET /v1/models. The suite's `answer` writes the model's events for each request. It also speaks the Responses
// API (POST /v1/responses, streamed: the `response.*` events Codex reads), answered by the suite's `respond`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAiApi {
  /** The base URL for RELAY_OPENAI_BASE_URL (or an endpoint's baseUrl): …/v1. */
  url: string;
  /** Every chat completions or responses request, in order: its path, its Authorization header and its body. */
  requests: { path: string; authorization: string | undefined; body: any }[];
  close(): Promise<void>;
}

export interface FakeOpenAiOptions {
  /** The server-sent events answering one chat completions request (each a whole `data: …\n\n`). */
  answer?: (body: any) => string[];
  /** The server-sent events answering one responses request (responseEvents). */
  respond?: (body: any) => string[];
  /** What GET /v1/models lists. */
  models: string[];
}

/** One chat.completion.chunk event with `delta` for the first choice. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'fake-1', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
}

/** The last chunk when stream_options.include_usage is set: no choices, the answer's tokens. */
export function usageChunk(promptTokens: number, completionTokens: number): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'fake-1', choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`;
}

/** The stream's end. */
export const DONE = 'data: [DONE]\n\n';

/** One Responses API event. */
function responseEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** What one response holds: a message, a call of a function tool (in its namespace, for a namespace's), or of a custom (freeform) tool. */
type ResponseOutput =
  { text: string } | { call: { namespace?: string; name: string; arguments: Record<string, unknown> } } | { custom: { name: string; input: string } };

/** The response's one output item. */
function outputItem(output: ResponseOutput): Record<string, unknown> {
  const callId = `call_${Math.random().toString(36).slice(2)}`;
  if ('text' in output)
    return { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: output.text, annotations: [] }] };
  if ('custom' in output)
    return { type: 'custom_tool_call', id: 'ctc_1', call_id: callId, name: output.custom.name, input: output.custom.input, status: 'completed' };
  const { namespace, name, arguments: args } = output.call;
  return {
    type: 'function_call',
    id: 'fc_1',
    call_id: callId,
    ...(namespace === undefined ? {} : { namespace }),
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/**
 * A whole streamed response: `text` as an assistant message (streamed in one delta), or a call of one of the
 * request's tools; then its end, with the answer's tokens.
 */
export function responseEvents(output: ResponseOutput, usage: { input: number; output: number }): string[] {
  const item = outputItem(output);
  const streamed =
    'text' in output ? [responseEvent('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: output.text })] : [];
  return [
    responseEvent('response.created', { response: { id: 'resp_1', status: 'in_progress' } }),
    responseEvent('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', ...('text' in output ? { content: [] } : {}) } }),
    ...streamed,
    responseEvent('response.output_item.done', { output_index: 0, item }),
    responseEvent('response.completed', {
      response: {
        id: 'resp_1',
        status: 'completed',
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    }),
  ];
}

async function readBody(request: IncomingMessage): Promise<any> {
  let text = '';
  for await (const part of request) text += part;
  return JSON.parse(text);
}

export async function startFakeOpenAiApi(options: FakeOpenAiOptions): Promise<FakeOpenAiApi> {
  const requests: FakeOpenAiApi['requests'] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const answer = request.url === '/v1/chat/completions' ? options.answer : request.url === '/v1/responses' ? options.respond : undefined;
      if (request.method === 'POST' && answer !== undefined) {
        const body = await readBody(request);
        requests.push({ path: request.url!, authorization: request.headers.authorization, body });
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const event of answer(body)) response.write(event);
        response.end();
        return;
      }
      if (request.method === 'GET' && request.url === '/v1/models') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: options.models.map((id) => ({ id, object: 'model', owned_by: 'test' })) }));
        return;
      }
      response.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
