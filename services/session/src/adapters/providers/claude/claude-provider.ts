/**
 * The `claude` and `claude-api` providers: Claude Code through the Claude Agent SDK, billed to the
 * subscription or to the Anthropic API key. The relay is Claude Code's HTTP MCP server `relay`, so
 * the agent calls relay_tool as mcp__relay__relay_tool, through the gateway with the session's token.
 * Permission prompts and the agent's questions become the session's ask_user cards; text steered in
 * mid-turn goes into the running query; the Claude Code session id is kept per session to resume.
 * A Bash command Claude Code would run in the background runs as the relay's background task instead (Claude
 * Code's process ends with the turn), and its sub-agents are the relay's local_agent tasks while they run.
 * Claude Code's own process runs in the relay's sandbox (its foreground Bash and file tools with it): its session's
 * folder read-write, its executable read-only, the credential of its billing, nothing else of the relay's. Its
 * transcripts live in the sandbox's private home and go with it, so each turn starts from the relay's record of
 * the conversation (withEarlierConversation) instead of resuming. A turn's resume point is its Claude Code session id
 * (once the SDK reported it): a replica that takes the turn over resumes that session where its transcript is there,
 * and otherwise starts again from the relay's record, told in both cases that the turn moved (HANDED_OVER_NOTE).
 * A card it waited on is withdrawn with the old process; Claude Code asks again on a new one.
 */
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import type { CanUseTool, Options, PermissionResult, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Logger } from '@relay/telemetry';
import type { UsageLedger } from '../../../app/usage/ports.ts';
import {
  ALWAYS_AVAILABLE,
  TurnFailed,
  type Availability,
  type ConversationHistory,
  type Provider,
  type ResumePoint,
  type TurnInput,
  type TurnReply,
} from '../../../app/turns/provider.ts';
import type { BackgroundTaskStarter } from '../../../app/tasks/background-task-starter.ts';
import type { CliSandbox } from '../../../app/tasks/cli-sandbox.ts';
import { approvalCardText } from '../../../app/turns/command-card.ts';
import { withEarlierConversation } from '../../../app/turns/earlier-conversation.ts';
import { APPROVAL_ANSWERS, pendingQuestion, type CardRequest, type QuestionCards } from '../../../app/turns/question-cards.ts';
import type { ClaudeSessionState, ClaudeSessionStates } from '../../../app/turns/claude-session-states.ts';
import { backgroundBashCall, EVERY_COMMAND_ASKS, notStartedMessage, startedInBackgroundMessage, type BackgroundBashCall } from './background-bash.ts';
import { buildClaudeQueryOptions, type ClaudeBilling } from './claude-query-options.ts';
import { TurnSubagents, type SubagentTaskLog } from './turn-subagents.ts';
import { recordTurnUsage } from '../../../app/usage/record-turn-usage.ts';

/** The SDK's query(), as the provider uses it: the messages it yields (tests pass a scripted one). */
export type QueryFn = (params: { prompt: AsyncIterable<SDKUserMessage>; options: Options }) => AsyncIterable<SDKMessage>;

export interface ClaudeProviderOptions {
  /** The billing, and with it the provider id; undefined when its credential is not configured. */
  billing: ClaudeBilling | undefined;
  /** What is missing when billing is undefined. */
  missing: string;
  /** Claude Code's executable, or why there is none. */
  executable: { path: string | undefined; reason: string };
  models: string[];
  gatewayUrl: string;
  cards: QuestionCards;
  /** Where background Bash commands run and sub-agents are kept, as the relay's tasks. */
  tasks: BackgroundTaskStarter & SubagentTaskLog;
  /** Where Claude Code's process runs (bubblewrap, or the command runner); an unavailable one makes the provider unavailable. */
  sandbox: CliSandbox;
  states: ClaudeSessionStates;
  usage: Pick<UsageLedger, 'record' | 'pause'>;
  logger: Logger;
  baseEnv: Readonly<Record<string, string | undefined>>;
  query: QueryFn;
  /** Whether Claude Code's session (its transcript) is on this replica to resume, for the session's folder. */
  hasTranscript: (resumeId: string, cwd: string) => Promise<boolean>;
  /** The relay's own record of the conversation before a message, for a turn that cannot resume. */
  history: ConversationHistory;
}

/**
 * What a turn taken over from another replica tells Claude Code before it goes on: it may have begun what it asked
 * for, and nothing it did is made again behind its back (a command asks on a new card).
 */
export const HANDED_OVER_NOTE =
  '[The relay moved this turn to another of its machines while you worked on it. Go on with the request where you left off. A command, edit or call you made before may already have taken effect: check before you make it again.]';

/** The Claude Code session a turn was handed over with (its resume point), or undefined on a first start. */
function handedOverState(resume: ResumePoint | undefined): ClaudeSessionState | undefined {
  const resumeId = resume?.['resumeId'];
  const costUsdTotal = resume?.['costUsdTotal'];
  return typeof resumeId === 'string' && typeof costUsdTotal === 'number' ? { resumeId, costUsdTotal } : undefined;
}

/**
 * Pushes user messages into a running query (streaming input), until closed. Each carries a uuid that the
 * results echo once a turn consumed it: a text steered in after the model's last tool round starts another
 * Claude Code turn, and the relay's turn lasts until every text pushed was answered.
 */
class PromptQueue implements AsyncIterable<SDKUserMessage> {
  readonly #waiting: SDKUserMessage[] = [];
  /** Pushed, and not yet echoed by a result. */
  readonly unanswered = new Set<string>();
  #wake: (() => void) | undefined;
  #closed = false;

  /** Takes the text into the query; false once the turn is over. */
  push(text: string): boolean {
    if (this.#closed) return false;
    const uuid = randomUUID();
    this.unanswered.add(uuid);
    this.#waiting.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, uuid });
    this.#wake?.();
    return true;
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    for (;;) {
      const next = this.#waiting.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}

/** What a turn has gathered so far: its reply, the session to resume, and what it used. */
interface TurnTally {
  text: string;
  resumeId: string | undefined;
  /** The SDK's cumulative total_cost_usd last seen. */
  costUsdTotal: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** What one SDK message did to the turn: the tally, whether the turn is over, and why it failed if it did. */
type Handled = { tally: TurnTally; done: boolean; failure?: string };

export class ClaudeProvider implements Provider {
  readonly id: 'claude' | 'claude-api';
  readonly canSteer = true;
  readonly #o: ClaudeProviderOptions;
  /** The turns running here, by session id: where steered text goes. */
  readonly #running = new Map<string, PromptQueue>();

  constructor(id: 'claude' | 'claude-api', options: ClaudeProviderOptions) {
    if (options.billing !== undefined && options.billing.provider !== id) throw new Error(`${id} was given the credential of ${options.billing.provider}`);
    this.id = id;
    this.#o = options;
  }

  availability(): Availability {
    if (this.#o.billing === undefined) return { available: false, reason: this.#o.missing };
    if (this.#o.executable.path === undefined) return { available: false, reason: this.#o.executable.reason };
    if (this.#o.sandbox.unavailable !== undefined) return { available: false, reason: `Claude Code runs commands, and ${this.#o.sandbox.unavailable}` };
    return ALWAYS_AVAILABLE;
  }

  async listModels(): Promise<string[]> {
    return [...this.#o.models];
  }

  steer(sessionId: string, text: string): boolean {
    return this.#running.get(sessionId)?.push(text) ?? false;
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const { billing, executable } = this.#o;
    if (billing === undefined || executable.path === undefined)
      throw new TurnFailed(`${this.id} is not available on this relay: ${this.availability().reason}`);
    const handedOver = handedOverState(input.resume);
    const stored = handedOver ?? (await this.#o.states.get(input.session.id));
    const resumable = stored !== undefined && (await this.#o.hasTranscript(stored.resumeId, input.session.cwd));
    const state = resumable ? stored : undefined;
    const text = await this.#firstPrompt(input, { handedOver: handedOver !== undefined, resumable, fresh: stored === undefined });
    const abort = new AbortController();
    const onAbort = () => abort.abort(input.signal.reason);
    input.signal.addEventListener('abort', onAbort, { once: true });
    const prompt = new PromptQueue();
    prompt.push(text);
    this.#running.set(input.session.id, prompt);
    const log = this.#o.logger.child({ sessionId: input.session.id, provider: this.id });
    const options: Options = {
      ...buildClaudeQueryOptions({
        billing,
        session: input.session,
        token: input.token,
        gatewayUrl: this.#o.gatewayUrl,
        executable: executable.path,
        resumeId: state?.resumeId,
        baseEnv: this.#o.baseEnv,
      }),
      abortController: abort,
      canUseTool: this.#canUseTool(input),
      // Every Bash comes to canUseTool, a read-only one too: the owner's card allows it (and a background one runs
      // as the relay's task, see #startInBackground).
      hooks: { PreToolUse: [EVERY_COMMAND_ASKS] },
      stderr: (data) => log.debug({ stderr: data.trimEnd() }, 'claude code'),
      spawnClaudeCodeProcess: (spawnOptions) => {
        const folder = spawnOptions.cwd ?? input.session.cwd;
        const child = this.#o.sandbox.spawn({
          sessionId: input.session.id,
          folder,
          argv: [spawnOptions.command, ...spawnOptions.args],
          env: spawnOptions.env,
          readOnly: [dirname(executable.path!)],
        });
        spawnOptions.signal?.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
        return child;
      },
    };
    // Sub-agents as tasks while they run, and their descriptions for the subagent_finished event.
    const subagents = new TurnSubagents(this.#o.tasks, input.session, log);
    let turn: TurnTally = { text: '', resumeId: state?.resumeId, costUsdTotal: state?.costUsdTotal ?? 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    try {
      let done = false;
      try {
        for await (const message of this.#o.query({ prompt, options })) {
          const ended = await this.#handle(message, input, turn, subagents, prompt);
          turn = ended.tally;
          if (ended.failure !== undefined) throw new TurnFailed(`Claude Code: ${ended.failure}`);
          if (ended.done) {
            // From here on a wake-up is queued as the next turn instead of steered into this one.
            prompt.close();
            done = true;
            break;
          }
        }
      } catch (error) {
        input.signal.throwIfAborted();
        if (error instanceof TurnFailed) throw error;
        // Claude Code could not start or broke off (no binary, refused credentials, a crash): the user reads why.
        throw new TurnFailed(`Claude Code failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      input.signal.throwIfAborted();
      if (!done) throw new TurnFailed('Claude Code ended without finishing the turn');
      return { text: turn.text, model: input.session.model };
    } finally {
      this.#running.delete(input.session.id);
      prompt.close();
      input.signal.removeEventListener('abort', onAbort);
      await subagents.endAll();
      if (turn.resumeId !== undefined) {
        await this.#o.states
          .set(input.session.id, { resumeId: turn.resumeId, costUsdTotal: turn.costUsdTotal })
          .catch((error: unknown) => log.warn({ err: error }, 'could not keep the Claude session to resume'));
      }
      if (turn.inputTokens + turn.outputTokens > 0 || turn.costUsd > 0) {
        await recordTurnUsage(this.#o.usage, this.id, input, { inputTokens: turn.inputTokens, outputTokens: turn.outputTokens, costUsd: turn.costUsd }, log);
      }
    }
  }

  /**
   * What the query starts with: the message; in a resumed session taken over, only the note (the session holds the
   * message); started again without its session, the relay's record of the conversation before it, then it.
   */
  async #firstPrompt(input: TurnInput, start: { handedOver: boolean; resumable: boolean; fresh: boolean }): Promise<string> {
    if (start.handedOver && start.resumable) return HANDED_OVER_NOTE;
    const text = start.handedOver ? `${input.message.text}\n\n${HANDED_OVER_NOTE}` : input.message.text;
    if (start.resumable || start.fresh) return text;
    return withEarlierConversation(await this.#o.history(input.session.id, input.message.id), text);
  }

  /** One SDK message: text deltas, tool calls and sub-agents go out as events; a result ends the turn. */
  async #handle(message: SDKMessage, input: TurnInput, turn: TurnTally, subagents: TurnSubagents, prompt: PromptQueue): Promise<Handled> {
    const next = { ...turn, resumeId: 'session_id' in message && typeof message.session_id === 'string' ? message.session_id : turn.resumeId };
    if (next.resumeId !== undefined && next.resumeId !== turn.resumeId) {
      // Claude Code's session now holds this turn's message: another replica can go on in it (never parked: Claude
      // Code's process is this replica's, so the turn moves only at the end of a stopping replica's grace).
      await input.emit({ type: 'resume_point', point: { resumeId: next.resumeId, costUsdTotal: next.costUsdTotal }, parked: false });
    }
    switch (message.type) {
      case 'stream_event': {
        const event = message.event;
        if (message.parent_tool_use_id === null && event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          await input.emit({ type: 'text', delta: event.delta.text });
        }
        return { done: false, tally: next };
      }
      case 'assistant': {
        for (const block of message.message.content) {
          if (block.type === 'tool_use') await input.emit({ type: 'tool_call', name: block.name, input: block.input });
        }
        return { done: false, tally: next };
      }
      case 'rate_limit_event': {
        const info = message.rate_limit_info;
        if (info.status === 'rejected' && info.resetsAt !== undefined) {
          // Recorded relay-wide: every replica's runner leaves the queued turns waiting until the reset.
          const until = new Date(info.resetsAt * 1000);
          await this.#o.usage.pause({ provider: this.id, until, reason: `a Claude usage limit holds turns until ${until.toISOString()}` });
        }
        return { done: false, tally: next };
      }
      case 'system': {
        if (message.subtype === 'task_started') await subagents.started(message);
        if (message.subtype === 'task_progress') await subagents.progressed(message.task_id);
        if (message.subtype === 'task_notification') {
          const description = (await subagents.finished(message.task_id, message.status)) ?? message.summary;
          await input.emit({ type: 'subagent_finished', description, status: message.status, summary: message.summary });
        }
        return { done: false, tally: next };
      }
      case 'result': {
        // total_cost_usd is cumulative over the query and a resumed transcript: this turn's share is the rise.
        const costUsd = message.total_cost_usd >= turn.costUsdTotal ? message.total_cost_usd - turn.costUsdTotal : message.total_cost_usd;
        const counted = {
          ...next,
          costUsdTotal: message.total_cost_usd,
          costUsd: turn.costUsd + costUsd,
          inputTokens:
            turn.inputTokens + message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0),
          outputTokens: turn.outputTokens + message.usage.output_tokens,
        };
        if (message.subtype !== 'success' || message.is_error) {
          // Counted all the same: a failed turn used what it used.
          const why = message.subtype === 'success' ? message.result : message.errors.join('; ') || message.subtype;
          return { done: true, tally: counted, failure: why || 'the turn failed' };
        }
        // Text steered in while the turn ran is answered by this result or a later one.
        const echoed = message.user_message_uuids ?? (message.user_message_uuid === undefined ? [] : [message.user_message_uuid]);
        for (const uuid of echoed) prompt.unanswered.delete(uuid);
        const more = echoed.length > 0 ? prompt.unanswered.size > 0 : (message.queued_turn_count ?? 0) > 0;
        return { done: !more, tally: { ...counted, text: message.result } };
      }
      default:
        return { done: false, tally: next };
    }
  }

  /**
   * AskUserQuestion becomes question cards in the session; every other permission prompt (a command, a file
   * write) is an approval card that only the session's owner decides, through the user API.
   */
  #canUseTool(input: TurnInput): CanUseTool {
    const { userId, id: sessionId, cwd } = input.session;
    return async (toolName, toolInput, options): Promise<PermissionResult> => {
      if (toolName === 'AskUserQuestion') {
        const questions = Array.isArray(toolInput['questions']) ? (toolInput['questions'] as { question?: unknown; options?: { label?: unknown }[] }[]) : [];
        const answers: Record<string, string> = {};
        for (const question of questions) {
          const text = typeof question.question === 'string' ? question.question : '';
          const labels = (question.options ?? []).map((option) => option.label).filter((label): label is string => typeof label === 'string');
          answers[text] = await this.#ask(input, { kind: 'question', userId, sessionId, question: text, options: labels }, options.signal);
        }
        return { behavior: 'allow', updatedInput: { ...toolInput, answers } };
      }
      const title = options.title ?? `Claude wants to use ${toolName}${options.decisionReason ? ` (${options.decisionReason})` : ''}`;
      const card = approvalCardText(title, [...permissionFields(cwd, toolName, toolInput), `Runs in: ${this.#o.tasks.where(cwd)}`]);
      if (card === undefined)
        return { behavior: 'deny', message: `The ${toolName} call is too long to show the user on a card; it was not run. Make it shorter.` };
      const answer = await this.#ask(input, { kind: 'approval', userId, sessionId, ...card }, options.signal);
      if (answer !== APPROVAL_ANSWERS.allowed) return { behavior: 'deny', message: 'The user chose Deny.' };
      const background = backgroundBashCall(toolName, toolInput);
      return background === undefined ? { behavior: 'allow', updatedInput: toolInput } : this.#startInBackground(input, background);
    };
  }

  /**
   * A background Bash the user allowed runs as the relay's task (it outlives Claude Code's process); Claude Code
   * is denied the run itself and told the task id and how to read it, or why it could not start.
   */
  async #startInBackground(input: TurnInput, call: BackgroundBashCall): Promise<PermissionResult> {
    try {
      const task = await this.#o.tasks.start({ sessionId: input.session.id, cwd: input.session.cwd, command: call.command, description: call.description });
      return { behavior: 'deny', message: startedInBackgroundMessage({ taskId: task.id, sessionId: input.session.id }) };
    } catch (error) {
      return { behavior: 'deny', message: notStartedMessage(error instanceof Error ? error.message : String(error)) };
    }
  }

  /** Raises a card, reports the wait, and returns the answer ('' when dismissed; APPROVAL_ANSWERS for an approval). */
  async #ask(input: TurnInput, card: CardRequest, signal: AbortSignal): Promise<string> {
    const { cards } = this.#o;
    const cardId = await cards.raise(card);
    await input.emit({ type: 'question_raised', question: pendingQuestion(cardId, card) });
    const both = AbortSignal.any([signal, input.signal]);
    try {
      return await cards.awaitAnswer(cardId, both);
    } catch (error) {
      if (both.aborted) await cards.cancel(input.session.id).catch(() => undefined);
      throw error;
    } finally {
      if (!both.aborted) await input.emit({ type: 'question_answered', questionId: cardId });
    }
  }
}

/** A permission card's fields: the folder, the tool, then its input field by field (strings whole, others as JSON). */
function permissionFields(cwd: string, toolName: string, toolInput: Record<string, unknown>): string[] {
  const fields = Object.entries(toolInput).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [`Folder: ${cwd}`, `Tool: ${toolName}`, ...fields];
}
