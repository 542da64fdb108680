// Issue 4 end to end: the `openai` provider against an OpenAI-compatible server the test runs on loopback,
// speaking the real wire format (SSE chat.completion.chunk events, tool_calls in pieces). The model calls
// relay_tool (list_sessions); the call reaches the gateway through MCP with the session's token, and its answer
// flows back to the model and into the turn's reply. Its models are discovered from the server's GET /v1/models.
// The tokens the endpoint reports (stream_options.include_usage) show in usage, and their cost at the
// configured prices (RELAY_OPENAI_PRICES); a second endpoint (RELAY_OPENAI_ENDPOINTS) is its own provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, DONE, startFakeOpenAiApi, usageChunk, type FakeOpenAiApi } from '../harness/fake-openai-api.ts';
import { startRelay, type Relay } from '../harness/relay.ts';
import { finish } from '../harness/script-turns.ts';

let relay: Relay;
let api: FakeOpenAiApi;

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
      DONE,
    ];
  }
  const result = JSON.parse(toolMessage.content);
  return [chunk({ role: 'assistant', content: 'The relay says: ' }), chunk({ content: result.summary }), chunk({}, 'stop'), usageChunk(120, 30), DONE];
}

beforeAll(async () => {
  api = await startFakeOpenAiApi({ answer, models: ['fake-1'] });
  relay = await startRelay({
    name: 'desk',
    env: {
      RELAY_AGENT_SESSIONS: 'on',
      RELAY_OPENAI_BASE_URL: api.url,
      RELAY_OPENAI_API_KEY: 'sk-test-key',
      // The endpoint reports tokens only: the relay prices them (US$ per million tokens).
      RELAY_OPENAI_PRICES: JSON.stringify({ 'fake-1': { inputUsdPerMTok: 1, outputUsdPerMTok: 10 } }),
      // A second endpoint, its own provider id, with its models configured (the same loopback server here).
      RELAY_OPENAI_ENDPOINTS: JSON.stringify([{ id: 'grok', name: 'Grok', baseUrl: api.url, apiKey: 'xai-test-key', models: ['grok-test'] }]),
      RELAY_USAGE_ALLOWANCES: JSON.stringify({ openai: { monthlyTokens: 1000 } }),
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await api?.close();
});

describe('the openai provider', () => {
  it('relay_info lists it as available, with the models discovered from GET /v1/models', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'script',
      title: 'Info',
      text: 'relay_tool {"action":"relay_info","relay":"this"}',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const turn = await finish(relay, created.body.session.id, created.body.message_id);
    const info = JSON.parse(turn.reply.text);
    expect(JSON.stringify(info)).not.toContain('sk-test-key');
    expect(info.providers.find((provider: any) => provider.id === 'openai')).toMatchObject({ available: true, models: ['fake-1'] });
  });

  it('relay_info lists each configured endpoint as its own provider', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', {
      provider: 'script',
      title: 'Endpoints',
      text: 'relay_tool {"action":"relay_info","relay":"this"}',
    });
    const info = JSON.parse((await finish(relay, created.body.session.id, created.body.message_id)).reply.text);
    expect(info.providers.find((provider: any) => provider.id === 'grok')).toMatchObject({ name: 'Grok', available: true, models: ['grok-test'] });
    expect(JSON.stringify(info)).not.toContain('xai-test-key');
  });

  it("runs a turn whose tool call reaches the gateway through MCP with the session's token, and answers with its result", async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'openai', model: 'fake-1', title: 'Chat', text: 'Which sessions are there?' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const turn = await finish(relay, created.body.session.id, created.body.message_id);
    expect(turn.status, JSON.stringify(turn)).toBe('done');
    expect(turn.reply).toMatchObject({ model: 'fake-1' });
    // list_sessions ran as the session's user: it sees its sessions (this one, and the relay_info and usage ones).
    expect(turn.reply.text).toMatch(/^The relay says: list_sessions → desk: 3 sessions$/);

    expect(api.requests).toHaveLength(2);
    const [first, second] = api.requests;
    expect(first!.body.stream_options).toEqual({ include_usage: true });
    expect(first!.authorization).toBe('Bearer sk-test-key');
    expect(first!.body).toMatchObject({ model: 'fake-1', stream: true, messages: [{ role: 'user', content: 'Which sessions are there?' }] });
    const relayTool = first!.body.tools.find((tool: any) => tool.function.name === 'relay_tool');
    expect(relayTool).toMatchObject({ type: 'function', function: { parameters: { type: 'object', properties: { action: expect.any(Object) } } } });
    expect(second!.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'relay_tool', arguments: '{"action":"list_sessions","relay":"this"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: expect.stringContaining('"ok":true') },
    ]);

    // The next message in the conversation carries what was said before.
    const sent = await relay.api('POST', `/api/v1/sessions/${created.body.session.id}/messages`, { text: 'And now?' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const again = await finish(relay, created.body.session.id, sent.body.message_id);
    expect(again.status, JSON.stringify(again)).toBe('done');
    expect(api.requests[2]!.body.messages).toEqual([
      { role: 'user', content: 'Which sessions are there?' },
      { role: 'assistant', content: turn.reply.text },
      { role: 'user', content: 'And now?' },
    ]);
  });

  it('usage meters the tokens the endpoint reported for those turns against the allowance; no secrets', async () => {
    const created = await relay.api('POST', '/api/v1/sessions', { provider: 'script', title: 'Usage', text: 'relay_tool {"action":"usage","relay":"this"}' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const result = JSON.parse((await finish(relay, created.body.session.id, created.body.message_id)).reply.text);
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
    expect(result.providers.find((provider: any) => provider.provider === 'claude-api')).toMatchObject({
      status: 'not_set_up',
      reason: 'no Anthropic API key configured (ANTHROPIC_API_KEY)',
    });
    expect(JSON.stringify(result)).not.toMatch(/sk-test-key|xai-test-key/);
  });
});
