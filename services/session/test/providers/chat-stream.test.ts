import { describe, expect, it } from 'vitest';
import { ChatStreamReader } from '../../src/adapters/providers/openai/chat-stream.ts';

const event = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('a streamed chat-completions answer', () => {
  it('joins content deltas and reports each as it comes, across arbitrary network chunks', () => {
    const seen: string[] = [];
    const reader = new ChatStreamReader((delta) => seen.push(delta));
    const body = event({ role: 'assistant', content: 'Hel' }) + event({ content: 'lo' }) + event({}, 'stop') + 'data: [DONE]\n\n';
    for (let i = 0; i < body.length; i += 7) reader.push(body.slice(i, i + 7));
    expect(reader.done).toBe(true);
    expect(reader.answer()).toEqual({ content: 'Hello', toolCalls: [], finishReason: 'stop' });
    expect(seen).toEqual(['Hel', 'lo']);
  });

  it('assembles tool calls from pieces by index', () => {
    const reader = new ChatStreamReader();
    reader.push(event({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'relay_tool', arguments: '' } }] }));
    reader.push(event({ tool_calls: [{ index: 1, id: 'call_b', function: { name: 'relay_tool', arguments: '{"action":' } }] }));
    reader.push(event({ tool_calls: [{ index: 0, function: { arguments: '{"action":"list_relays"}' } }] }));
    reader.push(event({ tool_calls: [{ index: 1, function: { arguments: '"wait"}' } }] }));
    reader.push(event({}, 'tool_calls') + ': keep-alive comment\n\ndata: [DONE]\n\n');
    expect(reader.answer()).toEqual({
      content: '',
      toolCalls: [
        { id: 'call_a', name: 'relay_tool', arguments: '{"action":"list_relays"}' },
        { id: 'call_b', name: 'relay_tool', arguments: '{"action":"wait"}' },
      ],
      finishReason: 'tool_calls',
    });
  });

  it('reads the tokens the last chunk reports when include_usage is set, and none when it is not', () => {
    const reader = new ChatStreamReader();
    reader.push(event({ content: 'Hi' }, 'stop'));
    reader.push(
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } })}\n\ndata: [DONE]\n\n`,
    );
    expect(reader.answer().usage).toEqual({ inputTokens: 42, outputTokens: 7 });
    const without = new ChatStreamReader();
    without.push(event({ content: 'Hi' }, 'stop') + 'data: [DONE]\n\n');
    expect(without.answer().usage).toBeUndefined();
  });

  it('reads the cached prompt tokens where the endpoint reports them: OpenAI’s prompt_tokens_details, DeepSeek’s prompt_cache_hit_tokens', () => {
    const usageOf = (usage: Record<string, unknown>) => {
      const reader = new ChatStreamReader();
      reader.push(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage })}\n\ndata: [DONE]\n\n`);
      return reader.answer().usage;
    };
    expect(usageOf({ prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 800 } })).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cachedInputTokens: 800,
    });
    expect(usageOf({ prompt_tokens: 1000, completion_tokens: 50, prompt_cache_hit_tokens: 600, prompt_cache_miss_tokens: 400 })).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cachedInputTokens: 600,
    });
    expect(usageOf({ prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: null })).toEqual({ inputTokens: 1000, outputTokens: 50 });
  });
});
