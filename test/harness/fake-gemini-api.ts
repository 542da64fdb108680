// The Gemini API (generativelanguage's v1beta) on loopback, for Gemini CLI with no credentials and no network
// (GOOGLE_GEMINI_BASE_URL): POST /v1beta/models/<model>:streamGenerateContent?alt=sse answers with one server-sent
// GenerateContentResponse, :generateContent with the same as JSON (a request that asks for JSON, as Gemini CLI's
// model router does, gets an empty object), :countTokens with a count. The suite's `answer` writes the model's turn.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGeminiApi {
  /** The base URL for GOOGLE_GEMINI_BASE_URL. */
  url: string;
  /** Every generate request, in order: its model, its API key header and its body. */
  requests: { model: string; apiKey: string | undefined; body: any }[];
  close(): Promise<void>;
}

/** What the model says: text, or a call of one of the request's functions. */
export type GeminiTurn = { text: string } | { call: { name: string; args: Record<string, unknown> } };

/** One whole GenerateContentResponse: the turn, finished, with its tokens. */
export function geminiResponse(turn: GeminiTurn, usage: { input: number; output: number }): Record<string, unknown> {
  const part = 'text' in turn ? { text: turn.text } : { functionCall: turn.call };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
  };
}

export async function startFakeGeminiApi(answer: (body: any) => Record<string, unknown>): Promise<FakeGeminiApi> {
  const requests: FakeGeminiApi['requests'] = [];
  const server = createServer((request, response) => {
    void (async () => {
      let text = '';
      for await (const part of request) text += part;
      const route = /^\/v1beta\/models\/([^:/]+):(streamGenerateContent|generateContent|countTokens)/.exec(request.url ?? '');
      if (request.method !== 'POST' || route === null) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const [, model, method] = route;
      const body = JSON.parse(text);
      if (method === 'countTokens') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const asksJson = body.generationConfig?.responseMimeType === 'application/json';
      if (!asksJson) requests.push({ model: model!, apiKey: request.headers['x-goog-api-key'] as string | undefined, body });
      const answered = asksJson ? geminiResponse({ text: '{}' }, { input: 0, output: 0 }) : answer(body);
      if (method === 'generateContent') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answered));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(`data: ${JSON.stringify(answered)}\n\n`);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
