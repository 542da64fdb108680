/**
 * A streamed chat-completions answer, read (pure over the SSE text): content deltas and tool calls
 * whose id, name and arguments arrive in pieces by index, until `data: [DONE]`.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text, joined from their deltas. */
  arguments: string;
}

export interface ChatAnswer {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  /**
   * The tokens the endpoint reported (its last chunk, with stream_options.include_usage); undefined when it reported
   * none. cachedInputTokens, the part of inputTokens its prompt cache served, only where the endpoint says.
   */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number } | undefined;
}

type Delta = { content?: string | null; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] };
type Chunk = {
  choices?: { delta?: Delta; finish_reason?: string | null }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    /** OpenAI's count of cached prompt tokens. */
    prompt_tokens_details?: { cached_tokens?: number } | null;
    /** DeepSeek's. */
    prompt_cache_hit_tokens?: number;
  } | null;
};

/** Collects one answer from its SSE events; `onText` sees each content delta as it comes. */
export class ChatStreamReader {
  readonly #calls = new Map<number, ToolCall>();
  #content = '';
  #finishReason: string | null = null;
  #usage: ChatAnswer['usage'];
  #buffer = '';
  done = false;

  constructor(private readonly onText: (delta: string) => void = () => undefined) {}

  /** Feeds more of the response body. */
  push(text: string): void {
    this.#buffer += text;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#line(line);
    }
  }

  answer(): ChatAnswer {
    if (this.#buffer.trim() !== '') this.#line(this.#buffer.trim());
    this.#buffer = '';
    return {
      content: this.#content,
      toolCalls: [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
      finishReason: this.#finishReason,
      usage: this.#usage,
    };
  }

  #line(line: string): void {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    if (data === '') return;
    const chunk = JSON.parse(data) as Chunk;
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? chunk.usage.prompt_cache_hit_tokens;
      this.#usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
        ...(typeof cached === 'number' ? { cachedInputTokens: cached } : {}),
      };
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.#content += delta.content;
        this.onText(delta.content);
      }
      for (const piece of delta.tool_calls ?? []) {
        const index = piece.index ?? 0;
        const call = this.#calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
        this.#calls.set(index, call);
      }
    }
  }
}
