// Issue 4 end to end: the `openai` provider against an OpenAI-compatible server the test runs on loopback,
// speaking the real wire format (SSE chat.completion.chunk events, tool_calls in pieces). The model calls
// relay_tool (list_sessions); the call reaches the gateway through MCP with the session's token, and its answer
// flows back to the model and into the turn's reply. Its models are discovered from the server's GET /v1/models.
// The tokens the endpoint reports (stream_options.include_usage) show in usage, and their cost at the
// configured prices (RELAY_OPENAI_PRICES); a second endpoint (RELAY_OPENAI_ENDPOINTS) is its own provider.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from '../harness/relay.ts';

let relay: Relay;
let server: Server;
const requests: { authorization: string | undefined; body: any }[] = [];

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'fake-1', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
}

/** The fake model: first asks for list_sessions (arguments in two pieces), then answers with what the tool said. */
function answer(body: any): string[] {
  const toolMessage = [...body.messages].reverse().find((message: any) => message.role === 'tool');
  if (toolMessage === undefined) {
    return [
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'relay_tool', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"action":"list_sessions",' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"relay":"this"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk(100, 10),
      'data: [DONE]\n\n',
    ];
  }
  const result = JSON.parse(toolMessage.content);
  return [chunk({ role: 'assistant', content: 'The relay says: ' }), chunk({ content: result.summary }), chunk({}, 'stop'), usageChunk(120, 30), 'data: [DONE]\n\n'];
}

/** The last chunk when stream_options.include_usage is set: no choices, the answer's tokens. */
function usageChunk(promptTokens: number, completionTokens: number): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'fake-1', choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`;
}

async function readBody(request: IncomingMessage): Promise<any> {
  let text = '';
  for await (const part of request) text += part;
  return JSON.parse(text);
}

async function finish(sessionId: string, messageId: string): Promise<any> {
  for (;;) {
    const result = await relay.api('GET', `/api/v1/sessions/${sessionId}/wait?message_id=${messageId}&wait_seconds=120`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (!['queued', 'running', 'waiting_for_answer'].includes(result.body.status)) return result.body;
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'POST' && request.url === '/v1/chat/completions') {
        const body = await readBody(request);
        requests.push({ authorization: request.headers.authorization, body });
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const event of answer(body)) response.write(event);
        response.end();
        return;
      }
      if (request.method === 'GET' && request.url === '/v1/models') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-1', object: 'model', owned_by: 'test' }] }));
        return;
      }
      response.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      RELAY_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
      RELAY_OPENAI_API_KEY: 'sk-test-key',
      // The endpoint reports tokens only: the relay prices them (US$ per million tokens).
      RELAY_OPENAI_PRICES: JSON.stringify({ 'fake-1': { inputUsdPerMTok: 1, outputUsdPerMTok: 10 } }),
      // A second endpoint, its own provider id, with its models configured (the same loopback server here).
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([{ id: 'grok', name: 'Grok', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'xai-test-key', models: ['grok-test'] }]),
      RELAY_USAGE_ALLOWANCES: JSON.stringify({ openai: { monthlyTokens: 1000 } }),
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

describe('the openai provider', () => {
  it('relay_info lists it as available, with the models discovered from GET /v1/models', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Info', text: 'relay_tool {"action":"relay_info","relay":"this"}' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const turn = await finish(created.body.session.id, created.body.message_id);
    const info = JSON.parse(turn.reply.text);
    expect(JSON.stringify(info)).not.toContain('sk-test-key');
    expect(info.providers.find((provider: any) => provider.id === 'openai')).toMatchObject({ available: true, models: ['fake-1'] });
  });

  it('relay_info lists each configured endpoint as its own provider', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Endpoints', text: 'relay_tool {"action":"relay_info","relay":"this"}' });
    const info = JSON.parse((await finish(created.body.session.id, created.body.message_id)).reply.text);
    expect(info.providers.find((provider: any) => provider.id === 'grok')).toMatchObject({ name: 'Grok', available: true, models: ['grok-test'] });
    expect(JSON.stringify(info)).not.toContain('xai-test-key');
  });

  it("runs a turn whose tool call reaches the gateway through MCP with the session's token, and answers with its result", async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'openai', model: 'fake-1', title: 'Chat', text: 'Which sessions are there?' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const turn = await finish(created.body.session.id, created.body.message_id);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ model: 'fake-1' });
    // list_sessions ran as the session's user: it sees its sessions (this one, and the relay_info and usage ones).
    expect(turn.reply.text).toMatch(/^The relay says: list_sessions → desk: 3 sessions$/);

    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(first!.body.stream_options).toEqual({ include_usage: true });
    expect(first!.authorization).toBe('Bearer sk-test-key');
    expect(first!.body).toMatchObject({ model: 'fake-1', stream: true, messages: [{ role: 'user', content: 'Which sessions are there?' }] });
    const relayTool = first!.body.tools.find((tool: any) => tool.function.name === 'relay_tool');
    expect(relayTool).toMatchObject({ type: 'function', function: { parameters: { type: 'object', properties: { action: expect.any(Object) } } } });
    expect(second!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'relay_tool', arguments: '{"action":"list_sessions","relay":"this"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: expect.stringContaining('"ok":true') },
    ]);

    // The next message in the conversation carries what was said before.
    const sent = await relay.api('POST', `/api/v1/sessions/${created.body.session.id}/messages`, { text: 'And now?' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const again = await finish(created.body.session.id, sent.body.message_id);
    expect(again.status, JSON.stringify(again)).toBe('done');
    expect(requests[2]!.body.messages).toEqual([
      { role: 'user', content: 'Which sessions are there?' },
      { role: 'assistant', content: turn.reply.text },
      { role: 'user', content: 'And now?' },
    ]);
  });

  it('usage meters the tokens the endpoint reported for those turns against the allowance; no secrets', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Usage', text: 'relay_tool {"action":"usage","relay":"this"}' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const result = JSON.parse((await finish(created.body.session.id, created.body.message_id)).reply.text);
    expect(result).toMatchObject({ ok: true, relay: 'desk', claudeUsageLimitPaused: false });
    // Two turns: the first took two answers (100+10, 120+30), the second one (the fake asks for a tool again: 100+10, then 120+30).
    const used = 2 * (100 + 10 + 120 + 30);
    // Priced: 440 input tokens × US$1 + 80 output × US$10, per million.
    const costUsd = (2 * (100 + 120) * 1 + 2 * (10 + 30) * 10) / 1e6;
    expect(result.providers.find((provider: any) => provider.provider === 'openai')).toEqual({
      provider: 'openai',
      status: 'ok',
      meters: [
        { name: 'tokens', used, allowance: 1000, remaining: 1000 - used, utilization: used / 1000, resetsAt: expect.stringMatching(/T00:00:00.000Z$/) },
        { name: 'cost_usd', used: costUsd, allowance: null, remaining: null, utilization: null, resetsAt: expect.any(String) },
      ],
    });
    // grok has no prices: its cost is not tracked, so it has no cost meter rather than one reading US$0.
    expect(result.providers.find((provider: any) => provider.provider === 'grok')).toMatchObject({ status: 'ok', meters: [{ name: 'tokens', used: 0 }] });
    expect(result.providers.find((provider: any) => provider.provider === 'grok').meters).toHaveLength(1);
    expect(result.providers.find((provider: any) => provider.provider === 'script')).toEqual({ provider: 'script', status: 'not_tracked', meters: [] });
    expect(result.providers.find((provider: any) => provider.provider === 'claude-api')).toMatchObject({ status: 'not_set_up', reason: 'no Anthropic API key configured (ANTHROPIC_API_KEY)' });
    expect(JSON.stringify(result)).not.toMatch(/sk-test-key|xai-test-key/);
  });
});
