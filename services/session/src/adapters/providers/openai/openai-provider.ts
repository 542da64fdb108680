/**
 * The `openai` provider: any OpenAI-compatible chat-completions endpoint with streamed tool calls.
 * The gateway's tools (relay_tool) are offered to the model as functions, listed and called through
 * the gateway's MCP endpoint with the session's token; the turn loops until the model answers
 * without a tool call, or the step limit or the turn's signal (stop, Max turn duration) ends it.
 * Given the relay's tasks and cards, it also offers run_command: a command that runs, on the session owner's Allow
 * (an approval card, as the script agent's `task`), as a background task in the relay's sandbox.
 */
import type { Logger } from '@relay/telemetry';
import type { BackgroundTaskStarter } from '../../../app/tasks/background-task-starter.ts';
import { commandCard } from '../../../app/turns/command-card.ts';
import { ownerAnswer } from '../../../app/turns/ask-owner.ts';
import { APPROVAL_ANSWERS, type QuestionCards } from '../../../app/turns/question-cards.ts';
import { commandRefused } from '../script/script-provider.ts';
import { turnCostUsd, type ModelPrice, type TokensUsed } from '../../../domain/usage/turn-cost.ts';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import {
  ALWAYS_AVAILABLE,
  TurnFailed,
  type Availability,
  type ConversationHistory,
  type Provider,
  type TurnInput,
  type TurnReply,
} from '../../../app/turns/provider.ts';
import { ChatStreamReader, type ChatAnswer } from './chat-stream.ts';
import { discoverModels } from './discover-models.ts';
import { GatewayMcp } from '../gateway-mcp.ts';
import { callForText, functionTools, type FunctionTool } from './mcp-tools.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';

export interface OpenAIProviderOptions {
  /** The provider id sessions name (decisions.md: one per endpoint). */
  id?: string;
  /** The endpoint's base URL, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey: string | undefined;
  gatewayUrl: string;
  /** Model answers per turn at most (each tool round is one). */
  maxSteps?: number;
  /** The conversation before the turn's message; none when not given. */
  history?: ConversationHistory;
  /** The configured model ids; undefined: discovered from GET {baseUrl}/models. */
  models?: string[] | undefined;
  /** Where each turn's tokens are recorded; not recorded when not given. */
  usage?: Pick<UsageLedger, 'record'>;
  /** Per model id, the price a turn's tokens cost (the endpoint reports tokens only); a model without one: cost not reported. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** The relay's tasks and cards: with both, the model may ask for a command (run_command); without, it may not. */
  commands?: { tasks: BackgroundTaskStarter; cards: QuestionCards; logger: Logger };
}

/** The tool a model asks for a command with. */
export const RUN_COMMAND_TOOL = 'run_command';

const RUN_COMMAND: FunctionTool = {
  type: 'function',
  function: {
    name: RUN_COMMAND_TOOL,
    description:
      "Runs a shell command (sh -c) in the session's folder, inside the relay's sandbox, once the user allows it on a card. " +
      'It starts as a background task and this returns its id at once; read its output with relay_tool action read_task_output.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The shell command.' },
        description: { type: 'string', description: 'A few words saying what it does (the task is listed by them).' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  },
};

type ChatMessage =
  | { role: 'user' | 'system'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

const DEFAULT_MAX_STEPS = 25;

export class OpenAIProvider implements Provider {
  readonly id: string;
  /** Chat completions have no way to take text into an answer being streamed. */
  readonly canSteer = false;
  readonly #options: OpenAIProviderOptions;

  constructor(options: OpenAIProviderOptions) {
    this.id = options.id ?? 'openai';
    this.#options = options;
  }

  /** Configured means reachable as far as the relay can tell before a turn: an endpoint that fails fails its turn. */
  availability(): Availability {
    return ALWAYS_AVAILABLE;
  }

  async listModels(signal?: AbortSignal): Promise<string[] | undefined> {
    if (this.#options.models !== undefined) return [...this.#options.models];
    return discoverModels({ baseUrl: this.#options.baseUrl, apiKey: this.#options.apiKey, ...(signal ? { signal } : {}) });
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const used = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    try {
      return await this.#run(input, used);
    } finally {
      if (used.inputTokens + used.outputTokens > 0) await this.#record(input, used);
    }
  }

  async #record(input: TurnInput, used: Required<TokensUsed>): Promise<void> {
    const { usage, prices, commands } = this.#options;
    if (usage === undefined) return;
    const costUsd = turnCostUsd(used, prices?.[input.session.model]);
    await recordTurnUsage(usage, this.id, input, { inputTokens: used.inputTokens, outputTokens: used.outputTokens, costUsd }, commands?.logger);
  }

  async #run(input: TurnInput, used: Required<TokensUsed>): Promise<TurnReply> {
    const tools = new GatewayMcp(this.#options.gatewayUrl, input.token, 'relay-openai-agent');
    const earlier = (await this.#options.history?.(input.session.id, input.message.id)) ?? [];
    const messages: ChatMessage[] = [...earlier.map((message) => ({ ...message }) as ChatMessage), { role: 'user', content: input.message.text }];
    const maxSteps = this.#options.maxSteps ?? DEFAULT_MAX_STEPS;
    try {
      const listed = await functionTools(tools, input.signal).catch((error: unknown) => {
        input.signal.throwIfAborted();
        throw new TurnFailed(`the relay's tools could not be listed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      const functions = this.#options.commands === undefined ? listed : [...listed, RUN_COMMAND];
      for (let step = 0; step < maxSteps; step++) {
        const answer = await this.#complete(input, { model: input.session.model, messages, tools: functions }, (delta) => input.emit({ type: 'text', delta }));
        used.inputTokens += answer.usage?.inputTokens ?? 0;
        used.outputTokens += answer.usage?.outputTokens ?? 0;
        used.cachedInputTokens += answer.usage?.cachedInputTokens ?? 0;
        if (answer.toolCalls.length === 0) return { text: answer.content, model: input.session.model };
        // What the turn used so far, in the ledger before its next answer: a budget over its tree sees a running turn
        // pass it, and stops it (docs/adr/0039-tree-budgets.md).
        await this.#record(input, used);
        messages.push({
          role: 'assistant',
          content: answer.content === '' ? null : answer.content,
          tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        });
        for (const call of answer.toolCalls) {
          input.signal.throwIfAborted();
          messages.push({ role: 'tool', tool_call_id: call.id, content: await this.#callTool(tools, call.name, call.arguments, input) });
        }
      }
      throw new TurnFailed(`${this.id}: the model made ${maxSteps} tool rounds without answering; the turn stops here`);
    } finally {
      await tools.close();
    }
  }

  async #callTool(tools: GatewayMcp, name: string, json: string, input: TurnInput): Promise<string> {
    let args: unknown;
    try {
      args = json.trim() === '' ? {} : JSON.parse(json);
    } catch {
      return JSON.stringify({ ok: false, error: `the arguments of ${name} are not JSON: ${json.slice(0, 200)}` });
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return JSON.stringify({ ok: false, error: `the arguments of ${name} must be a JSON object` });
    await input.emit({ type: 'tool_call', name, input: args });
    if (name === RUN_COMMAND_TOOL && this.#options.commands !== undefined)
      return JSON.stringify(await this.#runCommand(args as Record<string, unknown>, input, this.#options.commands));
    try {
      return await callForText(tools, name, args as Record<string, unknown>, input.signal);
    } catch (error) {
      input.signal.throwIfAborted();
      throw new TurnFailed(`${name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /**
   * run_command: on the session owner's Allow only (an approval card that says where it runs), a background task in
   * the relay's sandbox; refused without a card where no sandbox can be had. What the model reads back.
   */
  async #runCommand(args: Record<string, unknown>, input: TurnInput, ports: NonNullable<OpenAIProviderOptions['commands']>): Promise<unknown> {
    const command = typeof args['command'] === 'string' ? args['command'] : '';
    const description = typeof args['description'] === 'string' ? args['description'] : undefined;
    if (command.trim() === '') return { ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'run_command needs a command.' };
    const refusal = ports.tasks.refusal();
    if (refusal !== undefined) return { ok: false, code: 'REMOTE_RELAY_UNSUPPORTED', error: `The command did not run: ${refusal}.` };
    const { cwd, id: sessionId } = input.session;
    const text = commandCard({ agent: input.session.model, cwd, command, runsIn: ports.tasks.where(cwd) });
    if (text === undefined) return { ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'The command is too long to show on a card: it did not run.' };
    // Withdrawn while the turn runs on: no Allow, nothing ran. The turn stopped: the card is withdrawn with it; handed
    // over: it stays pending for the replica that takes the turn (ADR 0034).
    const answer = await ownerAnswer(input, ports.cards, text, ports.logger);
    if (answer !== APPROVAL_ANSWERS.allowed) return commandRefused(answer);
    try {
      const task = await ports.tasks.start({ sessionId, cwd, command, description });
      return { ok: true, taskId: task.id, status: task.status, description: task.description };
    } catch (error) {
      return { ok: false, code: 'REMOTE_RELAY_UNSUPPORTED', error: `The command did not start: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** One streamed completion. */
  async #complete(input: TurnInput, body: Record<string, unknown>, onText: (delta: string) => Promise<void>): Promise<ChatAnswer> {
    const url = `${this.#options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}) },
        // include_usage: the last chunk reports the answer's tokens (the relay's own accounting, usage).
        body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
        signal: input.signal,
      });
    } catch (error) {
      input.signal.throwIfAborted();
      throw new TurnFailed(`${this.id}: the endpoint could not be reached: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (!response.ok || response.body === null) {
      const text = await response.text().catch(() => '');
      throw new TurnFailed(`${this.id}: the endpoint answered HTTP ${response.status}${text ? `: ${text.slice(0, 300)}` : ''}`);
    }
    const pending: Promise<void>[] = [];
    const reader = new ChatStreamReader((delta) => pending.push(onText(delta)));
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        reader.push(decoder.decode(chunk, { stream: true }));
        if (reader.done) break;
      }
    } catch (error) {
      input.signal.throwIfAborted();
      throw new TurnFailed(`${this.id}: the answer stream broke off: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    await Promise.all(pending);
    return reader.answer();
  }
}
