/**
 * OpenAI's Codex through its app-server protocol (`codex app-server`, JSON-RPC on stdio; app-server-connection.ts),
 * the interface Codex's own IDE clients use: the one that asks its client before a command runs or a file changes
 * (the SDK's `codex exec` asks nobody). Each turn starts the Codex CLI inside the relay's sandbox: it reaches the
 * session's folder and a private home of its own (its configuration is the command line's, nothing of the relay's
 * environment but its own credential). Codex runs its commands in an "external sandbox" (the relay's, which
 * encloses it and every command it runs: Codex adds none of its own), and its approval policy is "untrusted": every
 * command and file change is asked, and each ask is the owner's approval card (Allow: it runs, in the sandbox; Deny:
 * it does not). The session's folder stays an untrusted project to Codex: a .codex configuration there is not
 * loaded. The gateway's MCP endpoint is its relay_tool (an HTTP MCP server with the session's token). Each turn opens
 * a new thread seeded with the relay's record of the conversation (Codex's threads live in the sandbox's home, gone
 * with the turn), so a restart loses nothing. Stop sends turn/interrupt, and the CLI is killed if the turn has not
 * ended within STOP_GRACE_MS. The tokens Codex reports for the thread are recorded in usage.
 */
import type { Logger } from '@relay/telemetry';
import type { CliSandbox, SandboxedCli } from '../../../app/tasks/cli-sandbox.ts';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';
import { approvalCardText, commandCard, type ApprovalCardText } from '../../../app/turns/command-card.ts';
import type { QuestionCards } from '../../../app/turns/question-cards.ts';
import { TurnFailed, type Availability, type ConversationHistory, type Provider, type TurnInput, type TurnReply } from '../../../app/turns/provider.ts';
import { askOwner } from '../../../app/turns/ask-owner.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';
import { discoverModels } from '../openai/discover-models.ts';
import { AppServerConnection } from './app-server-connection.ts';

/** How long a stopped turn may take to end after turn/interrupt before the CLI is killed (the spec's 5 s, less). */
export const STOP_GRACE_MS = 3_000;

/** OpenAI's API, where the model's requests go without RELAY_CODEX_BASE_URL. */
export const OPENAI_API = 'https://api.openai.com/v1';

/** The variables of the CLI's environment that carry its credential and the session's token (never on its command line). */
const KEY_VARIABLE = 'RELAY_CODEX_KEY';
const TOKEN_VARIABLE = 'RELAY_SESSION_TOKEN';

/** How long Codex waits for a relay_tool call (a float, as Codex reads it): send and wait hold one up to an hour. */
const RELAY_TOOL_TIMEOUT_S = '3900.0';

export interface CodexProviderOptions {
  /** Where the model's requests go (OpenAI's API, or a compatible endpoint that speaks the Responses API) and its key. */
  endpoint: { baseUrl: string; apiKey: string | undefined } | undefined;
  /** Why no endpoint is configured ('' when one is). */
  notConfigured: string;
  /** The Codex CLI (absolute) and the folder it needs to read (its own), or why none is found. */
  cli: { path: string; folder: string; reason: '' } | { path: undefined; reason: string };
  /** Configured model ids; undefined: discovered from the endpoint's GET /models. */
  models: readonly string[] | undefined;
  gatewayUrl: string;
  cards: QuestionCards;
  /** Where the CLI runs, and with it every command it runs: bubblewrap on one machine, the command runner on Kubernetes. */
  sandbox: CliSandbox;
  history: ConversationHistory;
  usage: Pick<UsageLedger, 'record'>;
  /** The environment the CLI starts from (childProcessEnv); its key and the session's token are added to it. */
  cliEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

/** One turn's tally. */
interface Tally {
  /** The turn's thread, once Codex has started it: its messages are the reply (a sub-agent's thread has its own). */
  thread: string | undefined;
  /** The reply's messages, whole, as Codex completed them. */
  messages: string[];
  /** Each thread's tokens so far (the turn's own thread, and any sub-agent's). */
  tokens: Map<string, { inputTokens: number; outputTokens: number }>;
  /** Reports still being made, in arrival order. */
  reports: Promise<void>;
  /** The file changes Codex proposed, by item id: what their approval card shows. */
  changes: Map<string, FileChange[]>;
}

interface FileChange {
  path: string;
  kind: { type: string };
  diff: string;
}

/** The few fields of Codex's thread items the relay reads. */
interface Item {
  type: string;
  id: string;
  text?: string;
  command?: string;
  changes?: FileChange[];
  server?: string;
  tool?: string;
  arguments?: unknown;
}

interface CodexTurn {
  id: string;
  status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
  error: { message: string } | null;
}

export class CodexProvider implements Provider {
  readonly id = 'codex';
  /** A turn takes no text while it runs (each turn is its own CLI). */
  readonly canSteer = false;
  readonly #o: CodexProviderOptions;

  constructor(options: CodexProviderOptions) {
    this.#o = options;
  }

  availability(): Availability {
    if (this.#o.endpoint === undefined) return { available: false, reason: this.#o.notConfigured };
    if (this.#o.cli.path === undefined) return { available: false, reason: this.#o.cli.reason };
    if (this.#o.sandbox.unavailable !== undefined)
      return { available: false, reason: `Codex runs only in the relay's sandbox: ${this.#o.sandbox.unavailable}` };
    return { available: true, reason: '' };
  }

  /** Configured, else the endpoint's GET /models. */
  async listModels(signal?: AbortSignal): Promise<string[] | undefined> {
    if (this.#o.models !== undefined) return [...this.#o.models];
    if (this.#o.endpoint === undefined) return undefined;
    return discoverModels({ baseUrl: this.#o.endpoint.baseUrl, apiKey: this.#o.endpoint.apiKey, ...(signal ? { signal } : {}) });
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const why = this.availability();
    if (!why.available) throw new TurnFailed(`Codex is not available on this relay: ${why.reason}`);
    const tally: Tally = { thread: undefined, messages: [], tokens: new Map(), reports: Promise.resolve(), changes: new Map() };
    const { cwd, model } = input.session;
    const child = this.#spawn(input);
    const exit = new Promise<never>((_, reject) =>
      child.once('close', (code: number | null, signal: string | null) =>
        reject(new TurnFailed(`Codex exited before its turn ended (${signal ?? `exit ${code}`})`)),
      ),
    );
    exit.catch(() => undefined); // Read only while the turn runs.
    let ended!: (turn: CodexTurn) => void;
    const completed = new Promise<CodexTurn>((resolve) => (ended = resolve));
    const connection = new AppServerConnection(
      { input: child.stdin, output: child.stdout },
      {
        'item/commandExecution/requestApproval': async (params) => ({ decision: (await this.#askCommand(input, params)) ? 'accept' : 'decline' }),
        'item/fileChange/requestApproval': async (params) => ({ decision: (await this.#askChange(input, tally, params)) ? 'accept' : 'decline' }),
      },
      (method, params) => this.#onNotification(input, tally, method, params, ended),
    );
    child.once('close', () => connection.close());
    let running: { threadId: string; turnId: string } | undefined;
    const interrupt = () => {
      if (running !== undefined) connection.request('turn/interrupt', running).catch(() => undefined);
    };
    let killed: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      // turn/interrupt first; a turn still running after the grace ends with its CLI.
      interrupt();
      killed = setTimeout(() => kill(child), STOP_GRACE_MS);
      killed.unref();
    };
    input.signal.addEventListener('abort', onAbort, { once: true });
    try {
      input.signal.throwIfAborted();
      await connection.request('initialize', { clientInfo: { name: 'relay', version: '1' } });
      connection.notify('initialized');
      // Codex asks before every command and file change. Read-only keeps the folder an untrusted project (its own
      // .codex configuration, hooks and rules are not loaded: they could start processes no card allowed); the turn
      // then runs in an external sandbox, the relay's, which encloses the CLI and its commands.
      const started = await connection.request<{ thread: { id: string } }>('thread/start', {
        model,
        cwd,
        sandbox: 'read-only',
        approvalPolicy: 'untrusted',
        ephemeral: true,
      });
      tally.thread = started.thread.id;
      const earlier = await this.#o.history(input.session.id, input.message.id);
      const prompt = [{ type: 'text', text: withEarlierConversation(earlier, input.message.text), text_elements: [] }];
      const begun = await connection.request<{ turn: { id: string } }>('turn/start', {
        threadId: started.thread.id,
        input: prompt,
        sandboxPolicy: { type: 'externalSandbox', networkAccess: 'enabled' },
      });
      running = { threadId: started.thread.id, turnId: begun.turn.id };
      if (input.signal.aborted) interrupt();
      // Stopped, the turn still ends here: by Codex's own end of it after turn/interrupt, else with its CLI.
      const result = await Promise.race([completed, exit]);
      await tally.reports;
      if (input.signal.aborted) throw input.signal.reason;
      if (result.status === 'failed') throw new TurnFailed(`Codex: ${result.error?.message ?? 'the turn failed'}`);
      if (result.status === 'interrupted') throw new TurnFailed('Codex interrupted the turn');
      return { text: tally.messages.join('\n\n'), model };
    } catch (error) {
      if (input.signal.aborted) throw input.signal.reason;
      if (error instanceof TurnFailed) throw error;
      throw new TurnFailed(`Codex: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      input.signal.removeEventListener('abort', onAbort);
      if (killed !== undefined) clearTimeout(killed);
      connection.close();
      kill(child);
      await this.#record(input, tally);
    }
  }

  /**
   * Starts `codex app-server` in the sandbox, in the session's folder (its own program folder read-only), configured
   * on its command line: the endpoint as its one model provider, the gateway's MCP endpoint as its relay_tool, the
   * commands it runs given only the basic variables ("core": never its credential or the session's token).
   */
  #spawn(input: TurnInput): SandboxedCli {
    const cli = this.#o.cli;
    if (cli.path === undefined) throw new TurnFailed(cli.reason);
    const endpoint = this.#o.endpoint!;
    const provider = { name: 'relay', base_url: endpoint.baseUrl, wire_api: 'responses', ...(endpoint.apiKey === undefined ? {} : { env_key: KEY_VARIABLE }) };
    const settings: [string, string][] = [
      ['model_provider', toml('relay')],
      ['model_providers.relay', toml(provider)],
      ['mcp_servers.relay.url', toml(new URL('/mcp', this.#o.gatewayUrl).toString())],
      ['mcp_servers.relay.bearer_token_env_var', toml(TOKEN_VARIABLE)],
      // relay_tool gates what needs the owner with its own cards.
      ['mcp_servers.relay.default_tools_approval_mode', toml('approve')],
      ['mcp_servers.relay.tool_timeout_sec', RELAY_TOOL_TIMEOUT_S],
      ['shell_environment_policy.inherit', toml('core')],
      ['check_for_update_on_startup', 'false'],
      ['analytics.enabled', 'false'],
    ];
    const argv = [cli.path, 'app-server', ...settings.flatMap(([key, value]) => ['-c', `${key}=${value}`])];
    const env = { ...this.#o.cliEnv, [TOKEN_VARIABLE]: input.token, ...(endpoint.apiKey === undefined ? {} : { [KEY_VARIABLE]: endpoint.apiKey }) };
    const child = this.#o.sandbox.spawn({ sessionId: input.session.id, folder: input.session.cwd, argv, env, readOnly: [cli.folder] });
    const log = this.#o.logger.child({ provider: this.id, sessionId: input.session.id });
    child.stderr.on('data', (chunk: Buffer) => log.debug({ stderr: chunk.toString('utf8').trimEnd() }, 'codex'));
    child.stdin.on('error', () => undefined); // The CLI gone: the connection ends on its stdout.
    child.once('error', (error) => log.warn({ err: error }, 'the Codex CLI could not start'));
    return child;
  }

  /**
   * Reports Codex's notifications: the reply's text (its thread's), the commands and tools it runs, the tokens of
   * every thread, its turn's end.
   */
  #onNotification(input: TurnInput, tally: Tally, method: string, params: unknown, ended: (turn: CodexTurn) => void): void {
    const report = (work: () => Promise<void>) => {
      tally.reports = tally.reports.then(work).catch((error: unknown) => this.#o.logger.warn({ err: error }, 'a Codex event was lost'));
    };
    const ours = (params as { threadId?: string }).threadId === tally.thread;
    switch (method) {
      case 'item/agentMessage/delta': {
        const { delta } = params as { delta: string };
        if (ours) report(() => input.emit({ type: 'text', delta }));
        break;
      }
      case 'item/started': {
        const { item } = params as { item: Item };
        if (item.type === 'commandExecution') report(() => input.emit({ type: 'tool_call', name: 'command', input: { command: item.command } }));
        else if (item.type === 'mcpToolCall') report(() => input.emit({ type: 'tool_call', name: `${item.server}/${item.tool}`, input: item.arguments ?? {} }));
        else if (item.type === 'fileChange') tally.changes.set(item.id, item.changes ?? []);
        break;
      }
      case 'item/completed': {
        const { item } = params as { item: Item };
        if (ours && item.type === 'agentMessage' && item.text) tally.messages.push(item.text);
        break;
      }
      case 'thread/tokenUsage/updated': {
        // Each thread's total so far: the turn's own, as each turn opens its own threads.
        const { threadId, tokenUsage } = params as { threadId: string; tokenUsage: { total: { inputTokens: number; outputTokens: number } } };
        tally.tokens.set(threadId, { inputTokens: tokenUsage.total.inputTokens, outputTokens: tokenUsage.total.outputTokens });
        break;
      }
      case 'turn/completed':
        if (ours) ended((params as { turn: CodexTurn }).turn);
        break;
      default:
        break;
    }
  }

  /** A command Codex asks to run, as the owner's command card; true only on Allow. */
  async #askCommand(input: TurnInput, params: unknown): Promise<boolean> {
    const asked = params as { command?: string | null; cwd?: string | null; reason?: string | null };
    const folder = asked.cwd ?? input.session.cwd;
    const text = commandCard({
      agent: this.#agent(input),
      cwd: folder,
      command: asked.command ?? '(not given)',
      runsIn: this.#o.sandbox.where(input.session.cwd),
    });
    return this.#ask(input, text);
  }

  /** A file change Codex asks to make (its patch, proposed just before), as the owner's approval card; true only on Allow. */
  async #askChange(input: TurnInput, tally: Tally, params: unknown): Promise<boolean> {
    const asked = params as { itemId: string; reason?: string | null };
    const changes = tally.changes.get(asked.itemId) ?? [];
    const text = approvalCardText(`${this.#agent(input)} wants to change files`, [
      `Folder: ${input.session.cwd}`,
      ...(asked.reason ? [`Reason: ${asked.reason}`] : []),
      ...changes.flatMap((change) => [`File (${change.kind.type}): ${change.path}`, ...(change.diff === '' ? [] : [`Change: ${change.diff}`])]),
    ]);
    return this.#ask(input, text);
  }

  /** Raises the card and waits for the owner; a card too long to show whole is no Allow. */
  async #ask(input: TurnInput, text: ApprovalCardText | undefined): Promise<boolean> {
    return text !== undefined && (await askOwner(input, this.#o.cards, text, this.#o.logger));
  }

  #agent(input: TurnInput): string {
    return `Codex (${input.session.model})`;
  }

  /** Records the tokens of the turn's threads, if it used any. */
  async #record(input: TurnInput, tally: Tally): Promise<void> {
    const used = [...tally.tokens.values()].reduce(
      (sum, thread) => ({ inputTokens: sum.inputTokens + thread.inputTokens, outputTokens: sum.outputTokens + thread.outputTokens }),
      { inputTokens: 0, outputTokens: 0 },
    );
    if (used.inputTokens + used.outputTokens > 0) await recordTurnUsage(this.#o.usage, this.id, input, { ...used, costUsd: null }, this.#o.logger);
  }
}

/** A value as TOML reads it on the CLI's command line (`-c key=value`): JSON's strings are TOML's, its objects inline tables. */
function toml(value: string | Record<string, string>): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return `{ ${Object.entries(value)
    .map(([key, inner]) => `${key} = ${JSON.stringify(inner)}`)
    .join(', ')} }`;
}

function kill(child: SandboxedCli): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
