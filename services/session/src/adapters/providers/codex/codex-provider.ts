/**
 * OpenAI's Codex through its app-server protocol (`codex app-server`, JSON-RPC on stdio; app-server-connection.ts),
 * the interface Codex's own IDE clients use: the one that asks its client before a command runs or a file changes
 * (the SDK's `codex exec` asks nobody). Each turn starts the Codex CLI inside the relay's sandbox: it reaches the
 * session's folder and a private home of its own (its configuration is the command line's, nothing of the relay's
 * environment but its own credential). Codex runs its commands in an "external sandbox" (the relay's, which
 * encloses it and every command it runs: Codex adds none of its own), and its approval policy is "untrusted": every
 * command and file change is asked, and each ask is the owner's approval card (Allow: it runs, in the sandbox; Deny:
 * it does not). The session's folder stays an untrusted project to Codex: a .codex configuration there is not
 * loaded. The gateway's MCP endpoint is its relay_tool (an HTTP MCP server with the session's token).
 *
 * A session is one Codex thread: each turn resumes it from the rollout the relay keeps (codex-thread-keeper.ts), on
 * whichever replica runs the turn, and a thread that cannot be resumed is a new one seeded with the relay's record of
 * the conversation. A turn saves a resume point (ADR 0034) as it starts, and before each card it waits on (parked, with
 * the thread's rollout kept as it is then): the replica that takes it over resumes the thread, waits on the same card,
 * and tells Codex that the turn moved and how the owner decided. Codex's request that waited died with the old CLI,
 * so an Allow applies to the same request asked again, once (no second card); a Deny or a withdrawn card is read by
 * Codex, and nothing ran. Stop sends turn/interrupt, and the CLI is killed if the turn has not ended within
 * STOP_GRACE_MS. The tokens Codex reports for the turn are recorded in usage.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '@relay/telemetry';
import type { CliSandbox, SandboxedCli } from '../../../app/tasks/cli-sandbox.ts';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';
import { approvalCardText, commandCard, type ApprovalCardText } from '../../../app/turns/command-card.ts';
import type { CodexThreads } from '../../../app/turns/codex-threads.ts';
import { APPROVAL_ANSWERS, type QuestionCards } from '../../../app/turns/question-cards.ts';
import {
  isHandedOver,
  TurnFailed,
  type Availability,
  type ConversationHistory,
  type Provider,
  type ResumePoint,
  type TurnInput,
  type TurnReply,
} from '../../../app/turns/provider.ts';
import { askOwner, ownerAnswer } from '../../../app/turns/ask-owner.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';
import { discoverModels } from '../openai/discover-models.ts';
import { AppServerConnection } from './app-server-connection.ts';
import { CodexThreadKeeper, type OpenedThread } from './codex-thread-keeper.ts';

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
  /** Each session's Codex thread, kept between turns and for the replica that takes a turn over. */
  threads: CodexThreads;
  usage: Pick<UsageLedger, 'record'>;
  /** The environment the CLI starts from (childProcessEnv); its key and the session's token are added to it. */
  cliEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

interface Tokens {
  inputTokens: number;
  outputTokens: number;
}

/** One turn's tally. */
interface Tally {
  /** The turn's thread, once Codex has opened it: its messages are the reply (a sub-agent's thread has its own). */
  thread: string | undefined;
  /** Keeps the thread's rollout, once the CLI is up. */
  keeper: CodexThreadKeeper | undefined;
  opened: OpenedThread | undefined;
  /** The reply's messages, whole, as Codex completed them (a turn taken over: the earlier replica's first). */
  messages: string[];
  /** Each thread's tokens: its total before the turn (a resumed thread's earlier turns), and so far (the turn's own thread, and any sub-agent's). */
  tokens: Map<string, { before: Tokens; total: Tokens }>;
  /**
   * The card the turn waited on when another replica ran it, once its owner allowed it: Codex's request died with
   * that replica's CLI, so the same request asked again is allowed without a second card, once.
   */
  allowedOnce: string | undefined;
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

/**
 * A Codex turn's resume point: the reply's messages so far, whether the kept rollout holds the turn (its message sent
 * to Codex), and the card it waits on (its raise id and text), if it does.
 */
interface CodexResumePoint {
  messages: string[];
  inThread: boolean;
  asked?: { raiseId: string; card: ApprovalCardText };
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
    const resume = input.resume as CodexResumePoint | undefined;
    const tally: Tally = {
      thread: undefined,
      keeper: undefined,
      opened: undefined,
      messages: [...(resume?.messages ?? [])],
      tokens: new Map(),
      allowedOnce: undefined,
      reports: Promise.resolve(),
      changes: new Map(),
    };
    const { cwd, model } = input.session;
    const child = this.#spawn(input);
    const log = this.#o.logger.child({ provider: this.id, sessionId: input.session.id });
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
        'item/commandExecution/requestApproval': async (params) => ({ decision: (await this.#askCommand(input, tally, params)) ? 'accept' : 'decline' }),
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
      const { codexHome } = await connection.request<{ codexHome: string }>('initialize', { clientInfo: { name: 'relay', version: '1' } });
      connection.notify('initialized');
      if (resume === undefined) await this.#save(input, tally, false, undefined);
      // Codex asks before every command and file change; the turn runs in an external sandbox, the relay's, which
      // encloses the CLI and its commands.
      tally.keeper = new CodexThreadKeeper({ threads: this.#o.threads, log, sessionId: input.session.id, connection, home: codexHome });
      const opened = await tally.keeper.open({ model, cwd });
      tally.opened = opened;
      tally.thread = opened.id;
      const text = await this.#prompt(input, tally, resume, opened);
      const begun = await connection.request<{ turn: { id: string } }>('turn/start', {
        threadId: opened.id,
        input: [{ type: 'text', text, text_elements: [] }],
        sandboxPolicy: { type: 'externalSandbox', networkAccess: 'enabled' },
      });
      running = { threadId: opened.id, turnId: begun.turn.id };
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
      // The thread as the turn left it, for the next turn; not a turn handed over (the replica taking it keeps it now).
      if (tally.opened !== undefined && !isHandedOver(input.signal) && child.exitCode === null && child.signalCode === null) {
        if (await tally.keeper!.keep(tally.opened, threadTokens(tally))) await tally.keeper!.tidy(tally.opened);
      }
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
        // Each thread's total so far, its earlier turns' with it (a resumed thread's): what it was before the turn is
        // taken off. The turn's own thread: its total as it was kept (it reports it again as it resumes, at no fixed
        // point); a sub-agent's: the total before its first answer.
        const { threadId, tokenUsage } = params as { threadId: string; tokenUsage: { total: Tokens; last: Tokens } };
        const total = { inputTokens: tokenUsage.total.inputTokens, outputTokens: tokenUsage.total.outputTokens };
        const before =
          ours && tally.opened !== undefined
            ? tally.opened.tokens
            : (tally.tokens.get(threadId)?.before ?? {
                inputTokens: total.inputTokens - tokenUsage.last.inputTokens,
                outputTokens: total.outputTokens - tokenUsage.last.outputTokens,
              });
        tally.tokens.set(threadId, { before, total });
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
  async #askCommand(input: TurnInput, tally: Tally, params: unknown): Promise<boolean> {
    const asked = params as { command?: string | null; cwd?: string | null; reason?: string | null };
    const folder = asked.cwd ?? input.session.cwd;
    const text = commandCard({
      agent: this.#agent(input),
      cwd: folder,
      command: asked.command ?? '(not given)',
      runsIn: this.#o.sandbox.where(input.session.cwd),
    });
    return this.#ask(input, tally, text);
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
    return this.#ask(input, tally, text);
  }

  /**
   * Raises the card and waits for the owner; a card too long to show whole is no Allow. The card a turn waited on
   * before it moved here, allowed, allows its request asked again, once. Before the card, the thread's rollout is
   * kept and the turn parked on the card (its raise id), so a replica that takes it over waits on this very card.
   */
  async #ask(input: TurnInput, tally: Tally, text: ApprovalCardText | undefined): Promise<boolean> {
    if (text === undefined) return false;
    if (tally.allowedOnce !== undefined && tally.allowedOnce === cardKey(text)) {
      tally.allowedOnce = undefined;
      return true;
    }
    const raiseId = `${input.message.id}:codex:${randomUUID()}`;
    const inThread = tally.opened !== undefined && (await tally.keeper!.keep(tally.opened, threadTokens(tally)));
    await this.#save(input, tally, inThread, { raiseId, card: text });
    const allowed = await askOwner(input, this.#o.cards, text, this.#o.logger, raiseId);
    await this.#save(input, tally, inThread, undefined);
    return allowed;
  }

  /** Saves the turn's resume point: parked while it waits on a card. */
  async #save(input: TurnInput, tally: Tally, inThread: boolean, asked: CodexResumePoint['asked']): Promise<void> {
    const point: CodexResumePoint = { messages: [...tally.messages], inThread, ...(asked === undefined ? {} : { asked }) };
    await input.emit({ type: 'resume_point', point: point as unknown as ResumePoint, parked: asked !== undefined });
  }

  /**
   * What the turn sends Codex: its message (on a new thread, after the relay's record of the conversation); a turn
   * taken over, that it moved (and, where it waited on a card, the owner's decision, waited for here), after its
   * message unless the thread already holds it.
   */
  async #prompt(input: TurnInput, tally: Tally, resume: CodexResumePoint | undefined, opened: OpenedThread): Promise<string> {
    const message = opened.resumed
      ? input.message.text
      : withEarlierConversation(await this.#o.history(input.session.id, input.message.id), input.message.text);
    if (resume === undefined) return message;
    let moved = MOVED;
    if (resume.asked !== undefined) {
      const { card, raiseId } = resume.asked;
      await this.#save(input, tally, resume.inThread, resume.asked);
      const answer = await ownerAnswer(input, this.#o.cards, card, this.#o.logger, raiseId);
      if (answer === APPROVAL_ANSWERS.allowed) tally.allowedOnce = cardKey(card);
      await this.#save(input, tally, resume.inThread, undefined);
      moved = movedAtCard(card, answer);
    }
    return opened.resumed && resume.inThread ? moved : `${message}\n\n${moved}`;
  }

  #agent(input: TurnInput): string {
    return `Codex (${input.session.model})`;
  }

  /** Records the tokens of the turn's threads, if it used any. */
  async #record(input: TurnInput, tally: Tally): Promise<void> {
    const used = [...tally.tokens.values()].reduce(
      (sum, { before, total }) => ({
        inputTokens: sum.inputTokens + total.inputTokens - before.inputTokens,
        outputTokens: sum.outputTokens + total.outputTokens - before.outputTokens,
      }),
      { inputTokens: 0, outputTokens: 0 },
    );
    if (used.inputTokens + used.outputTokens > 0) await recordTurnUsage(this.#o.usage, this.id, input, { ...used, costUsd: null }, this.#o.logger);
  }
}

/** The turn's thread's token total so far (what it was before the turn, if it has not answered yet). */
function threadTokens(tally: Tally): Tokens {
  return (tally.thread === undefined ? undefined : tally.tokens.get(tally.thread)?.total) ?? tally.opened?.tokens ?? { inputTokens: 0, outputTokens: 0 };
}

/** A card's text as one string, whatever order its fields came back in (the resume point is JSONB). */
function cardKey(card: ApprovalCardText): string {
  return JSON.stringify([card.title, card.lines]);
}

/** What Codex reads in a turn taken over that did not wait on a card. */
const MOVED =
  '[The relay moved this turn to another of its processes while it ran, and your session with it. A command or file change you made may have taken effect, or been cut off: check before doing it again, then go on.]';

/** What Codex reads in a turn taken over while it waited on the owner's card: the card, and the owner's decision. */
function movedAtCard(card: ApprovalCardText, answer: string | undefined): string {
  const decided =
    answer === APPROVAL_ANSWERS.allowed
      ? 'The owner allowed it, but it has not been done: ask for the same again to do it (it will not be asked again).'
      : answer === undefined
        ? 'The card was withdrawn before the owner decided: it was not done.'
        : `The owner chose ${answer}: it was not done.`;
  return `[The relay moved this turn to another of its processes while you waited for the owner's approval of: ${[card.title, ...card.lines].join('; ')}. ${decided} Then go on.]`;
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
