/**
 * An agent that speaks the Agent Client Protocol on stdio (Gemini CLI, OpenCode, …), through the official ACP SDK's
 * client side. Each turn starts the agent's command in the relay's sandbox (the session's folder, nothing of the
 * relay's), opens an ACP session in the folder with the gateway's MCP endpoint as its relay_tool (the session's
 * token), and prompts it with the message (and, as the session is new to the agent, the relay's record of the
 * conversation: nothing is lost to a restart). Its permission requests, terminals and file writes are the owner's
 * approval cards; its terminals and its file reads and writes run in the sandbox (acp-files.ts). Stop sends session/cancel, and the process is killed if the turn
 * has not ended within STOP_GRACE_MS.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type ClientContext,
  type McpServer,
  type NewSessionRequest,
  type PromptRequest,
  type SessionConfigOption,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { Logger } from '@relay/telemetry';
import type { AcpAgentConfig } from '../../../config.ts';
import type { CliSandbox, SandboxedCli } from '../../../app/tasks/cli-sandbox.ts';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import { approvalCardText, commandCard } from '../../../app/turns/command-card.ts';
import type { QuestionCards } from '../../../app/turns/question-cards.ts';
import { TurnFailed, type Availability, type ConversationHistory, type Provider, type TurnInput, type TurnReply } from '../../../app/turns/provider.ts';
import { commandOf, permissionCard, permissionOutcome } from './acp-cards.ts';
import { readInSandbox, writeInSandbox, type FileTarget } from './acp-files.ts';
import { AcpTerminals } from './acp-terminals.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';
import { askOwner } from '../../../app/turns/ask-owner.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';

/** How long a stopped turn may take to end after session/cancel before its agent is killed (the spec's 5 s, less). */
export const STOP_GRACE_MS = 3_000;

export interface AcpProviderOptions {
  agent: AcpAgentConfig;
  /** The agent's program found (absolute), or why not. */
  program: { path: string; reason: '' } | { path: undefined; reason: string };
  gatewayUrl: string;
  /** Where model discovery opens its session (the relay's default folder). */
  discoveryCwd: string;
  cards: QuestionCards;
  /** Where the agent's process and its terminals run (bubblewrap, or the command runner). */
  sandbox: CliSandbox;
  history: ConversationHistory;
  usage: Pick<UsageLedger, 'record'>;
  /** The environment the agent starts from (childProcessEnv), its own `env` added. */
  agentEnv: Readonly<Record<string, string>>;
  /** The environment its terminals' commands start from (commandEnv). */
  commandEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

/** One turn's tally. */
interface Tally {
  text: string;
  /** The session/update notifications still being reported, in arrival order. */
  updates: Promise<void>;
  costUsd: number | null;
  /** Whether the owner denied one of its permission requests (an agent may end its turn on that: Codex does). */
  denied: boolean;
  inputTokens: number;
  outputTokens: number;
}

/** What a running agent is to a turn: the ACP connection and its process. */
interface Running {
  agent: ClientContext;
  child: SandboxedCli;
  close(): void;
}

export class AcpProvider implements Provider {
  readonly id: string;
  /** A prompt turn takes no text while it runs (ACP has no steering). */
  readonly canSteer = false;
  readonly #o: AcpProviderOptions;
  readonly #name: string;

  constructor(options: AcpProviderOptions) {
    this.#o = options;
    this.id = options.agent.id;
    this.#name = options.agent.name ?? options.agent.id;
  }

  availability(): Availability {
    if (this.#o.program.path === undefined) return { available: false, reason: this.#o.program.reason };
    if (this.#o.sandbox.unavailable !== undefined)
      return { available: false, reason: `${this.#name} runs only in the relay's sandbox: ${this.#o.sandbox.unavailable}` };
    return { available: true, reason: '' };
  }

  /** Configured, else the values of the agent's "model" option in a new session (undefined when it has none). */
  async listModels(signal?: AbortSignal): Promise<string[] | undefined> {
    if (this.#o.agent.models !== undefined) return [...this.#o.agent.models];
    const running = this.#start(this.#o.discoveryCwd, undefined, undefined);
    const onAbort = () => running.close();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await running.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      const session = await running.agent.request('session/new', { cwd: this.#o.discoveryCwd, mcpServers: [] });
      return modelOption(session.configOptions)?.values;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      running.close();
    }
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const why = this.availability();
    if (!why.available) throw new TurnFailed(`${this.id} is not available on this relay: ${why.reason}`);
    const tally: Tally = { text: '', updates: Promise.resolve(), costUsd: null, denied: false, inputTokens: 0, outputTokens: 0 };
    const terminals = new AcpTerminals(this.#o.sandbox, this.#o.commandEnv, input.session.id);
    const running = this.#start(input.session.cwd, input, { tally, terminals });
    let stopped: Promise<void> | undefined;
    const onAbort = () => {
      // session/cancel first; a turn still running after the grace ends with its process.
      stopped = running.agent.notify('session/cancel', { sessionId: this.#sessionId ?? '' }).catch(() => undefined);
      setTimeout(() => running.close(), STOP_GRACE_MS).unref();
    };
    try {
      const init = await running.agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'relay', version: '1' },
      });
      const relayTool: McpServer = {
        type: 'http',
        name: 'relay',
        url: new URL('/mcp', this.#o.gatewayUrl).toString(),
        headers: [{ name: 'Authorization', value: `Bearer ${input.token}` }],
      };
      const newSession: NewSessionRequest = { cwd: input.session.cwd, mcpServers: init.agentCapabilities?.mcpCapabilities?.http === true ? [relayTool] : [] };
      const session = await running.agent.request('session/new', newSession);
      this.#sessionId = session.sessionId;
      await this.#chooseModel(running.agent, session.sessionId, session.configOptions, input.session.model);
      input.signal.addEventListener('abort', onAbort, { once: true });
      input.signal.throwIfAborted();
      const earlier = await this.#o.history(input.session.id, input.message.id);
      const prompt: PromptRequest = { sessionId: session.sessionId, prompt: [{ type: 'text', text: withEarlierConversation(earlier, input.message.text) }] };
      const response = await running.agent.request('session/prompt', prompt);
      countTokens(tally, response);
      // The updates sent before the response are in; the reply waits until each is reported.
      await new Promise((resolve) => setImmediate(resolve));
      await tally.updates;
      if (input.signal.aborted) throw input.signal.reason;
      if (response.stopReason === 'cancelled')
        throw new TurnFailed(
          tally.denied ? `${this.#name} ended the turn on the owner's Deny: what it asked for did not run` : `${this.#name} cancelled the turn`,
        );
      if (response.stopReason === 'refusal') throw new TurnFailed(`${this.#name} refused to go on with this turn`);
      return { text: tally.text, model: input.session.model };
    } catch (error) {
      if (input.signal.aborted) {
        await stopped;
        throw input.signal.reason;
      }
      if (error instanceof TurnFailed) throw error;
      throw new TurnFailed(`${this.#name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      input.signal.removeEventListener('abort', onAbort);
      terminals.killAll();
      running.close();
      this.#sessionId = undefined;
      if (tally.inputTokens + tally.outputTokens > 0 || tally.costUsd !== null) await this.#record(input, tally);
    }
  }

  /** The files its home holds, read-only, as the sandbox writes them (an object as JSON). */
  get #homeFiles(): Record<string, string> | undefined {
    const files = this.#o.agent.homeFiles;
    return files && Object.fromEntries(Object.entries(files).map(([path, text]) => [path, typeof text === 'string' ? text : JSON.stringify(text, null, 2)]));
  }

  /** The ACP session of the turn running (one per provider object per turn: set while it runs). */
  #sessionId: string | undefined;

  async #chooseModel(agent: ClientContext, sessionId: string, options: SessionConfigOption[] | null | undefined, model: string): Promise<void> {
    const option = modelOption(options);
    if (option === undefined || model === '' || option.current === model) return;
    if (!option.values.includes(model)) throw new TurnFailed(`${this.#name} does not offer the model '${model}' (it offers ${option.values.join(', ')})`);
    await agent.request('session/set_config_option', { sessionId, configId: option.id, value: model });
  }

  async #record(input: TurnInput, tally: Tally): Promise<void> {
    await recordTurnUsage(
      this.#o.usage,
      this.id,
      input,
      { inputTokens: tally.inputTokens, outputTokens: tally.outputTokens, costUsd: tally.costUsd },
      this.#o.logger,
    );
  }

  /** Starts the agent's command in the sandbox and connects to it; `turn` undefined: no card, file or terminal is served. */
  #start(cwd: string, input: TurnInput | undefined, turn: { tally: Tally; terminals: AcpTerminals } | undefined): Running {
    const program = this.#o.program.path!;
    const [, ...args] = this.#o.agent.command;
    // Model discovery (no turn) is no session's: the command runner refuses it, as it runs a process only as a user's.
    const child = this.#o.sandbox.spawn({
      sessionId: input?.session.id,
      folder: cwd,
      argv: [program, ...args],
      env: this.#o.agentEnv,
      readOnly: [dirname(program), ...(this.#o.agent.readOnly ?? [])],
      homeFiles: this.#homeFiles,
    });
    const log = this.#o.logger.child({ provider: this.id, ...(input ? { sessionId: input.session.id } : {}) });
    child.stderr.on('data', (chunk: Buffer) => log.debug({ stderr: chunk.toString('utf8').trimEnd() }, 'acp agent'));
    child.once('error', (error: Error) => log.warn({ err: error }, 'the ACP agent could not start'));
    const app = this.#client(cwd, input, turn);
    const connection = app.connect(
      ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>),
    );
    child.once('close', () => connection.close(new Error(`${this.#name} exited`)));
    return {
      agent: connection.agent,
      child,
      close: () => {
        connection.close();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      },
    };
  }

  #client(cwd: string, input: TurnInput | undefined, turn: { tally: Tally; terminals: AcpTerminals } | undefined) {
    const agentName = input?.session.model ? `${this.#name} (${input.session.model})` : this.#name;
    const runsIn = this.#o.sandbox.where(cwd);
    // Its file reads and writes run in its session's sandbox, with the commands' environment.
    const files: FileTarget = { sandbox: this.#o.sandbox, sessionId: input?.session.id, folder: cwd, env: this.#o.commandEnv };
    // Commands the owner allowed on a permission card this turn: their terminal asks no second card.
    const allowed = new Set<string>();
    return client({ name: 'relay' })
      .onNotification('session/update', ({ params }) => {
        if (input === undefined || turn === undefined) return;
        // Applied in arrival order: text deltas must not overtake each other.
        turn.tally.updates = turn.tally.updates
          .then(() => onUpdate(input, turn.tally, params.update))
          .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'an ACP update was lost'));
        return turn.tally.updates;
      })
      .onRequest('session/request_permission', async ({ params }) => {
        if (input === undefined) return { outcome: { outcome: 'cancelled' } };
        const text = permissionCard(agentName, cwd, runsIn, params.toolCall);
        if (text === undefined) return permissionOutcome(params.options, false);
        const yes = await askOwner(input, this.#o.cards, text, this.#o.logger);
        if (!yes && turn !== undefined) turn.tally.denied = true;
        const command = commandOf(params.toolCall);
        if (yes && command !== undefined) allowed.add(command);
        return permissionOutcome(params.options, yes);
      })
      .onRequest('terminal/create', async ({ params }) => {
        if (input === undefined || turn === undefined) throw RequestError.methodNotFound('terminal/create');
        const folder = params.cwd ?? cwd;
        if (!(await inside(cwd, folder))) throw RequestError.invalidParams(undefined, `the terminal's folder must lie inside the session's folder ${cwd}`);
        const command = [params.command, ...(params.args ?? [])].join(' ');
        if (!allowed.delete(command)) {
          const text = commandCard({ agent: agentName, cwd: folder, command, runsIn: this.#o.sandbox.where(folder) });
          if (text === undefined || !(await askOwner(input, this.#o.cards, text, this.#o.logger))) {
            throw new RequestError(-32000, 'The user did not allow this command: it did not run.');
          }
        }
        await input.emit({ type: 'tool_call', name: 'terminal', input: { command, cwd: folder } });
        return {
          terminalId: turn.terminals.create({ folder, command: params.command, args: params.args, env: params.env, outputByteLimit: params.outputByteLimit }),
        };
      })
      .onRequest('terminal/output', ({ params }) => turn!.terminals.output(params.terminalId))
      .onRequest('terminal/wait_for_exit', ({ params, signal }) => turn!.terminals.waitForExit(params.terminalId, signal))
      .onRequest('terminal/kill', ({ params }) => {
        turn!.terminals.kill(params.terminalId);
        return {};
      })
      .onRequest('terminal/release', ({ params }) => {
        turn!.terminals.release(params.terminalId);
        return {};
      })
      .onRequest('fs/read_text_file', async ({ params }) => {
        if (!(await inside(cwd, params.path))) throw RequestError.invalidParams(undefined, `reads stay inside the session's folder ${cwd}`);
        const read = await readInSandbox(files, params.path);
        if (!read.ok) throw RequestError.resourceNotFound(params.path);
        const lines = read.output.split('\n');
        const from = Math.max(0, (params.line ?? 1) - 1);
        return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join('\n') };
      })
      .onRequest('fs/write_text_file', async ({ params }) => {
        if (input === undefined) throw RequestError.methodNotFound('fs/write_text_file');
        if (!(await inside(cwd, params.path))) throw RequestError.invalidParams(undefined, `writes stay inside the session's folder ${cwd}`);
        const text = approvalCardText(`${agentName} wants to write a file`, [`File: ${params.path}`, `Content: ${params.content}`]);
        if (text === undefined || !(await askOwner(input, this.#o.cards, text, this.#o.logger))) {
          throw new RequestError(-32000, 'The user did not allow this write: the file is unchanged.');
        }
        const wrote = await writeInSandbox(files, params.path, params.content);
        if (!wrote.ok) throw new RequestError(-32000, `The file could not be written in the sandbox: ${wrote.error}`);
        return {};
      });
  }
}

/** Reports one session/update: reply text, the tools it calls, what it costs. */
async function onUpdate(input: TurnInput, tally: Tally, update: SessionUpdate): Promise<void> {
  if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
    tally.text += update.content.text;
    await input.emit({ type: 'text', delta: update.content.text });
  } else if (update.sessionUpdate === 'tool_call') {
    await input.emit({ type: 'tool_call', name: update.title, input: update.rawInput ?? {} });
  } else if (update.sessionUpdate === 'usage_update' && update.cost?.currency === 'USD') {
    // The session's cumulative cost: the turn's own, as each turn opens its own session.
    tally.costUsd = update.cost.amount;
  }
}

/** The tokens a prompt response reports: ACP's `usage`, else Gemini CLI's `_meta.quota.token_count`. */
function countTokens(tally: Tally, response: object): void {
  const reported = response as {
    usage?: { inputTokens?: unknown; outputTokens?: unknown };
    _meta?: { quota?: { token_count?: { input_tokens?: unknown; output_tokens?: unknown } } } | null;
  };
  const quota = reported._meta?.quota?.token_count;
  const [input, output] = reported.usage ? [reported.usage.inputTokens, reported.usage.outputTokens] : [quota?.input_tokens, quota?.output_tokens];
  if (typeof input === 'number') tally.inputTokens += input;
  if (typeof output === 'number') tally.outputTokens += output;
}

/** The agent's "model" select option: its id, current value and values. */
function modelOption(options: SessionConfigOption[] | null | undefined): { id: string; current: string; values: string[] } | undefined {
  const option = options?.find((candidate) => candidate.category === 'model' && candidate.type === 'select');
  if (option === undefined || option.type !== 'select') return undefined;
  const values = option.options.flatMap((entry) => ('group' in entry ? entry.options.map((inner) => inner.value) : [entry.value]));
  return { id: option.id, current: option.currentValue, values };
}

/** Whether `path` (absolute) lies inside `folder`, as the machine resolves both (a link out of it does not count). */
async function inside(folder: string, path: string): Promise<boolean> {
  if (!isAbsolute(path)) return false;
  const root = await realpath(folder);
  let probe = resolve(path);
  // The nearest part of the path that exists, resolved: a file not yet written lies where its folder does.
  for (;;) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      const rest = relative(probe, resolve(path));
      const within = relative(root, resolve(real, rest));
      return within === '' || (!within.startsWith('..') && !isAbsolute(within));
    }
    const parent = dirname(probe);
    if (parent === probe) return false;
    probe = parent;
  }
}
