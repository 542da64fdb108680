/**
 * GitHub Copilot through the official SDK (@github/copilot-sdk), which drives the Copilot CLI's runtime over stdio.
 * Each turn starts its own runtime in the CLI sandbox (CliSandbox.spawn, through a bridge: copilot-runtime.ts), as
 * Claude Code's process is: bubblewrap on one machine, the command runner on Kubernetes as the session's user for its
 * folder; in the session's folder with the sandbox's private home as its state folder, its program folder read-only,
 * and only the environment childProcessEnv gives (nothing of the relay's; the relay's record of the conversation
 * going with the message), in the SDK's "empty" mode with two tools: run_command,
 * and relay_tool from the gateway's MCP endpoint (an HTTP MCP server called with the session's token, as Claude Code
 * gets it); none of the CLI's built-in tools runs here. Every other permission request is the owner's approval card
 * (Allow or Deny, the owner only); an allowed command runs in the relay's sandbox. With RELAY_COPILOT_BASE_URL the
 * runtime sends the model's requests to that OpenAI-compatible endpoint (bring your own key), else to GitHub with
 * COPILOT_GITHUB_TOKEN. Stop aborts the turn, and the runtime is killed if it has not ended within STOP_GRACE_MS.
 * The tokens it reports are recorded in usage.
 */
import { dirname } from 'node:path';
import {
  CopilotClient,
  RuntimeConnection,
  ToolSet,
  type CopilotSession,
  type PermissionRequest,
  type PermissionRequestResult,
  type SessionEvent,
} from '@github/copilot-sdk';
import type { Logger } from '@relay/telemetry';
import type { CliSandbox } from '../../../app/tasks/cli-sandbox.ts';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import { approvalCardText, commandCard } from '../../../app/turns/command-card.ts';
import type { QuestionCards } from '../../../app/turns/question-cards.ts';
import { TurnFailed, type Availability, type ConversationHistory, type Provider, type TurnInput, type TurnReply } from '../../../app/turns/provider.ts';
import { RELAY_MCP_SERVER } from '../claude/claude-query-options.ts';
import { commandArgument, RUN_COMMAND_DESCRIPTION, RUN_COMMAND_PARAMETERS, RUN_COMMAND_TOOL, runInSandbox } from './copilot-command.ts';
import { sandboxedRuntime, type SandboxedRuntime } from './copilot-runtime.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';
import { askOwner } from '../../../app/turns/ask-owner.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';

/** How long a stopped turn may take to end before its runtime is killed (the spec's 5 s, less). */
export const STOP_GRACE_MS = 3_000;

/**
 * The state folder the SDK's "empty" mode asks for (COPILOT_HOME); the runtime's real one is set in its sandbox, in
 * the sandbox's private home (copilot-runtime.ts).
 */
const RUNTIME_HOME = '/tmp/copilot-home';

/** relay_tool as the runtime names the gateway's MCP tool (server-tool). */
const RELAY_TOOL = 'relay_tool';
const RELAY_TOOL_FOR_COPILOT = `${RELAY_MCP_SERVER}-${RELAY_TOOL}`;

export interface CopilotProviderOptions {
  /** GitHub's token, when the model's requests go to GitHub. */
  token: string | undefined;
  /** The OpenAI-compatible endpoint of bring-your-own-key mode, and its key. */
  byok: { baseUrl: string; apiKey: string | undefined } | undefined;
  /** The runtime to start (absolute) and the folder it lies in, or why none can be. */
  runtime: { path: string; folder: string; reason: '' } | { path: undefined; reason: string };
  models: readonly string[];
  /** The gateway whose /mcp is the session's relay_tool. */
  gatewayUrl: string;
  cards: QuestionCards;
  sandbox: CliSandbox;
  history: ConversationHistory;
  usage: Pick<UsageLedger, 'record'>;
  /** The environment the runtime starts from (childProcessEnv). */
  runtimeEnv: Readonly<Record<string, string>>;
  /** The environment its commands start from (commandEnv). */
  commandEnv: Readonly<Record<string, string>>;
  logger: Logger;
}

/** One turn's tally. */
interface Tally {
  text: string;
  /** The whole messages, for a runtime that sent no deltas. */
  messages: string[];
  inputTokens: number;
  outputTokens: number;
  /** Reports still being made, in arrival order. */
  reports: Promise<void>;
}

export class CopilotProvider implements Provider {
  readonly id = 'copilot';
  /** A turn takes no text while it runs here (each turn is its own runtime). */
  readonly canSteer = false;
  readonly #o: CopilotProviderOptions;

  constructor(options: CopilotProviderOptions) {
    this.#o = options;
  }

  availability(): Availability {
    if (this.#o.byok === undefined && this.#o.token === undefined)
      return {
        available: false,
        reason: 'GitHub Copilot token not configured (COPILOT_GITHUB_TOKEN), nor a bring-your-own-key endpoint (RELAY_COPILOT_BASE_URL)',
      };
    if (this.#o.runtime.reason !== '') return { available: false, reason: this.#o.runtime.reason };
    // The runtime never runs unconfined.
    if (this.#o.sandbox.unavailable !== undefined) return { available: false, reason: this.#o.sandbox.unavailable };
    return { available: true, reason: '' };
  }

  listModels(): Promise<string[] | undefined> {
    return Promise.resolve([...this.#o.models]);
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const why = this.availability();
    if (!why.available) throw new TurnFailed(`Copilot is not available on this relay: ${why.reason}`);
    const tally: Tally = { text: '', messages: [], inputTokens: 0, outputTokens: 0, reports: Promise.resolve() };
    const runtime = await this.#runtime(input);
    const client = new CopilotClient({
      connection: RuntimeConnection.forStdio(runtime.bridge),
      mode: 'empty',
      baseDirectory: RUNTIME_HOME,
      workingDirectory: input.session.cwd,
      env: { ...this.#o.runtimeEnv },
      logLevel: 'error',
      ...(this.#o.byok === undefined ? { gitHubToken: this.#o.token! } : { useLoggedInUser: false }),
    });
    let session: CopilotSession | undefined;
    let killed: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      void session?.abort().catch(() => undefined);
      killed = setTimeout(() => void client.forceStop().catch(() => undefined), STOP_GRACE_MS);
      killed.unref();
    };
    try {
      await client.start();
      session = await client.createSession({
        model: input.session.model,
        streaming: true,
        workingDirectory: input.session.cwd,
        infiniteSessions: { enabled: false },
        ...(this.#o.byok === undefined
          ? {}
          : { provider: { type: 'openai', baseUrl: this.#o.byok.baseUrl, ...(this.#o.byok.apiKey === undefined ? {} : { apiKey: this.#o.byok.apiKey }) } }),
        mcpServers: {
          [RELAY_MCP_SERVER]: {
            type: 'http',
            url: new URL('/mcp', this.#o.gatewayUrl).toString(),
            headers: { Authorization: `Bearer ${input.token}` },
            tools: [RELAY_TOOL],
          },
        },
        availableTools: new ToolSet().addCustom(RUN_COMMAND_TOOL).addMcp(RELAY_TOOL_FOR_COPILOT),
        tools: [
          {
            name: RUN_COMMAND_TOOL,
            description: RUN_COMMAND_DESCRIPTION,
            parameters: RUN_COMMAND_PARAMETERS,
            // Asked only after the owner's Allow (onPermissionRequest).
            handler: (args: unknown) =>
              runInSandbox(
                this.#o.sandbox,
                { sessionId: input.session.id, folder: input.session.cwd, env: this.#o.commandEnv },
                commandArgument(args) ?? 'true',
                input.signal,
              ),
          },
        ],
        onPermissionRequest: (request) => this.#decide(input, request),
      });
      const idle = this.#follow(session, input, tally);
      input.signal.addEventListener('abort', onAbort, { once: true });
      input.signal.throwIfAborted();
      const earlier = await this.#o.history(input.session.id, input.message.id);
      await session.send({ prompt: withEarlierConversation(earlier, input.message.text) });
      await Promise.race([idle, aborted(input.signal)]);
      await tally.reports;
      const text = tally.text !== '' ? tally.text : tally.messages.join('\n\n');
      return { text, model: input.session.model };
    } catch (error) {
      if (input.signal.aborted) throw input.signal.reason;
      if (error instanceof TurnFailed) throw error;
      const why = runtime.failure();
      throw new TurnFailed(`Copilot: ${error instanceof Error ? error.message : String(error)}${why === undefined ? '' : ` (the runtime: ${why})`}`, {
        cause: error,
      });
    } finally {
      input.signal.removeEventListener('abort', onAbort);
      if (killed !== undefined) clearTimeout(killed);
      await this.#close(client, session);
      await runtime.close();
      if (tally.inputTokens + tally.outputTokens > 0) await this.#record(input, tally);
    }
  }

  /** Reports the session's events (text, tools, tokens); resolves when it is idle, rejects on its error. */
  #follow(session: CopilotSession, input: TurnInput, tally: Tally): Promise<void> {
    return new Promise((resolve, reject) => {
      const report = (work: () => Promise<void>) => {
        tally.reports = tally.reports.then(work).catch((error: unknown) => this.#o.logger.warn({ err: error }, 'a Copilot event was lost'));
      };
      session.on((event: SessionEvent) => {
        switch (event.type) {
          case 'assistant.message_delta':
            tally.text += event.data.deltaContent;
            report(() => input.emit({ type: 'text', delta: event.data.deltaContent }));
            break;
          case 'assistant.message':
            if (event.data.content !== '') tally.messages.push(event.data.content);
            break;
          case 'tool.execution_start':
            report(() => input.emit({ type: 'tool_call', name: event.data.toolName, input: event.data.arguments ?? {} }));
            break;
          case 'assistant.usage':
            tally.inputTokens += event.data.inputTokens ?? 0;
            tally.outputTokens += event.data.outputTokens ?? 0;
            break;
          case 'session.error':
            reject(new TurnFailed(`Copilot: ${event.data.message}`));
            break;
          case 'session.idle':
            resolve();
            break;
          default:
            break;
        }
      });
    });
  }

  /** The turn's runtime in the sandbox, for the session in its folder, its program folder read-only; a .js CLI runs on this Node. */
  #runtime(input: TurnInput): Promise<SandboxedRuntime> {
    const runtime = this.#o.runtime;
    if (runtime.path === undefined) throw new TurnFailed(runtime.reason);
    const node = runtime.path.endsWith('.js');
    return sandboxedRuntime({
      sandbox: this.#o.sandbox,
      sessionId: input.session.id,
      folder: input.session.cwd,
      argv: node ? [process.execPath, runtime.path] : [runtime.path],
      readOnly: node ? [runtime.folder, dirname(process.execPath)] : [runtime.folder],
    });
  }

  /**
   * A permission request as the owner's approval card: a command card for run_command, else the tool and its input.
   * relay_tool is allowed without a card: what needs the owner, it asks on its own cards.
   */
  async #decide(input: TurnInput, request: PermissionRequest): Promise<PermissionRequestResult> {
    if (request.kind === 'mcp' && request.serverName === RELAY_MCP_SERVER && request.toolName === RELAY_TOOL_FOR_COPILOT) return { kind: 'approve-once' };
    const { cwd, model } = input.session;
    const agent = `Copilot (${model})`;
    const asked = request as { kind: string; toolName?: unknown; args?: unknown };
    const command = asked.toolName === RUN_COMMAND_TOOL ? commandArgument(asked.args) : undefined;
    const text =
      command !== undefined
        ? commandCard({ agent, cwd, command, runsIn: this.#o.sandbox.where(cwd) })
        : approvalCardText(`${agent} wants to use ${typeof asked.toolName === 'string' ? asked.toolName : asked.kind}`, [
            `Folder: ${cwd}`,
            `Kind: ${asked.kind}`,
            `Input: ${JSON.stringify(asked.args ?? {})}`,
          ]);
    if (command !== undefined && this.#o.sandbox.unavailable !== undefined)
      return { kind: 'reject', feedback: 'No sandbox can be had on this relay: the command did not run.' };
    if (text === undefined || !(await askOwner(input, this.#o.cards, text, this.#o.logger)))
      return { kind: 'reject', feedback: 'The user did not allow this: it did not run.' };
    return { kind: 'approve-once' };
  }

  /** Ends the session and its runtime: gracefully, else killed. */
  async #close(client: CopilotClient, session: CopilotSession | undefined): Promise<void> {
    const graceful = (async () => {
      await session?.disconnect().catch(() => undefined);
      await client.stop();
    })();
    const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_GRACE_MS).unref());
    if ((await Promise.race([graceful.catch(() => undefined), late])) === 'late') await client.forceStop().catch(() => undefined);
  }

  async #record(input: TurnInput, tally: Tally): Promise<void> {
    await recordTurnUsage(this.#o.usage, this.id, input, { inputTokens: tally.inputTokens, outputTokens: tally.outputTokens, costUsd: null }, this.#o.logger);
  }
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
