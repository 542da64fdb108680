/**
 * The `script` provider: a real, deterministic agent whose behaviour is the prompt itself (see
 * parse-script.ts and the service README). It reaches relay_tool only through the gateway, and runs a
 * command (`task`) only on the session owner's Allow.
 */
import type { Logger } from '@relay/telemetry';
import type { BackgroundTaskStarter } from '../../../app/tasks/background-task-starter.ts';
import { ALWAYS_AVAILABLE, TurnFailed, type Availability, type Provider, type TurnInput, type TurnReply } from '../../../app/turns/provider.ts';
import { commandCard } from '../../../app/turns/command-card.ts';
import { APPROVAL_ANSWERS, pendingQuestion, type CardRequest, type QuestionCards } from '../../../app/turns/question-cards.ts';
import { interpolate, type ScriptVariables } from './interpolate.ts';
import { McpRelayTool } from './mcp-relay-tool.ts';
import { jsonObjectProblem, parseScript, parseSeconds, type ScriptStep } from './parse-script.ts';

export const SCRIPT_MODEL = 'script-1';
/** The reply to a prompt that is not in the language, so nothing runs away. */
export const NO_STEPS_REPLY = 'script-1: no steps in the prompt';
export const TASK_UNAVAILABLE = 'task is not available yet';

export interface ScriptProviderOptions {
  /** The gateway's base URL; relay_tool goes to its /mcp. */
  gatewayUrl: string;
  cards: QuestionCards;
  logger: Logger;
  /** Starts `task` steps; without it a task step fails the turn. */
  tasks?: BackgroundTaskStarter;
}

/** Runs script prompts step by step on the relay clock. */
export class ScriptProvider implements Provider {
  readonly id = 'script';
  /** A script runs its steps as written: nothing is steered into it; wake-ups queue behind it. */
  readonly canSteer = false;
  readonly #options: ScriptProviderOptions;

  constructor(options: ScriptProviderOptions) {
    this.#options = options;
  }

  availability(): Availability {
    return ALWAYS_AVAILABLE;
  }

  async listModels(): Promise<string[]> {
    return [SCRIPT_MODEL];
  }

  async startTurn(input: TurnInput): Promise<TurnReply> {
    const script = parseScript(input.message.text);
    if (script.steps.length === 0) return { text: NO_STEPS_REPLY, model: SCRIPT_MODEL };
    if (script.problems.length > 0) throw new TurnFailed(`script-1: ${script.problems.join('; ')}`);
    if (this.#options.tasks === undefined && script.steps.some((step) => step.kind === 'task')) throw new TurnFailed(TASK_UNAVAILABLE);

    const relayTool = new McpRelayTool(this.#options.gatewayUrl, input.token);
    const variables: ScriptVariables = { answer: '' };
    const lines: string[] = [];
    try {
      for (const step of script.steps) {
        input.signal.throwIfAborted();
        await this.#run(step, input, { relayTool, variables, lines });
      }
    } finally {
      await relayTool.close();
    }
    if (lines.length > 0) return { text: lines.join('\n'), model: SCRIPT_MODEL };
    return { text: variables.result === undefined ? 'ok' : JSON.stringify(variables.result), model: SCRIPT_MODEL };
  }

  async #run(step: ScriptStep, input: TurnInput, state: { relayTool: McpRelayTool; variables: ScriptVariables; lines: string[] }): Promise<void> {
    const { variables } = state;
    switch (step.kind) {
      case 'reply': {
        const text = interpolate(step.text, variables);
        await input.emit({ type: 'text', delta: state.lines.length === 0 ? text : `\n${text}` });
        state.lines.push(text);
        return;
      }
      case 'relay_tool': {
        const json = interpolate(step.json, variables, { json: true });
        const problem = jsonObjectProblem(json);
        if (problem !== undefined) throw new TurnFailed(`script-1: line ${step.line}: ${problem}`);
        const args = JSON.parse(json) as Record<string, unknown>;
        await input.emit({ type: 'tool_call', name: 'relay_tool', input: args });
        variables.result = await state.relayTool.call(args, input.signal);
        return;
      }
      case 'wait': {
        const seconds = parseSeconds(interpolate(step.seconds, variables));
        if (seconds === undefined) throw new TurnFailed(`script-1: line ${step.line}: wait needs a number of seconds`);
        if (seconds > 0) await input.clock.sleep(seconds * 1000, input.signal);
        return;
      }
      case 'ask_user':
        variables.answer = await this.#askUser(
          input,
          interpolate(step.question, variables),
          step.options.map((option) => interpolate(option, variables)),
        );
        return;
      case 'fail':
        throw new TurnFailed(interpolate(step.message, variables));
      case 'task':
        variables.result = await this.#startTask(input, interpolate(step.command, variables));
        return;
    }
  }

  /**
   * A command runs only on the session owner's Allow, whoever sent the prompt and in every mode: an approval card
   * in the session (and the owner's Inbox) while the turn waits, which only the owner decides. Allowed, it starts as
   * a background task that runs on after the turn, and {{result}} is its id, status and command; denied or
   * withdrawn, nothing runs and {{result}} is the refusal, for the script to read.
   */
  async #startTask(input: TurnInput, command: string): Promise<unknown> {
    const tasks = this.#options.tasks;
    if (tasks === undefined) throw new TurnFailed(TASK_UNAVAILABLE);
    await input.emit({ type: 'tool_call', name: 'task', input: { command } });
    // Where no sandbox can be had, nothing may run: no card asks for an Allow that could not be given.
    const refusal = tasks.refusal();
    if (refusal !== undefined) return { ok: false, code: 'REMOTE_RELAY_UNSUPPORTED', error: `The command did not run: ${refusal}.` };
    const card = commandCard({ agent: SCRIPT_MODEL, cwd: input.session.cwd, command, runsIn: tasks.where(input.session.cwd) });
    if (card === undefined) return { ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'The command is too long to show on a card: it did not run.' };
    const cardId = await this.#raise(input, { kind: 'approval', userId: input.session.userId, sessionId: input.session.id, ...card });
    const answer = await this.#answer(input, cardId).catch((error: unknown) => {
      // A card withdrawn (or lost) while the turn runs on is no Allow: the script reads that, nothing ran.
      if (!input.signal.aborted && error instanceof TurnFailed) return undefined;
      throw error;
    });
    if (answer !== APPROVAL_ANSWERS.allowed) return commandRefused(answer);
    try {
      const task = await tasks.start({ sessionId: input.session.id, cwd: input.session.cwd, command });
      return { ok: true, taskId: task.id, status: task.status, description: task.description };
    } catch (error) {
      throw new TurnFailed(`task: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async #askUser(input: TurnInput, question: string, options: string[]): Promise<string> {
    return this.#answer(input, await this.#raise(input, { kind: 'question', userId: input.session.userId, sessionId: input.session.id, question, options }));
  }

  /** Raises a card in the turn's own session and reports that the turn waits on it; the card's id. */
  async #raise(input: TurnInput, card: CardRequest): Promise<string> {
    const cardId = await this.#options.cards.raise(card);
    await input.emit({ type: 'question_raised', question: pendingQuestion(cardId, card) });
    return cardId;
  }

  /** The user's answer to a raised card ('' if dismissed); throws TurnFailed when it was withdrawn. */
  async #answer(input: TurnInput, cardId: string): Promise<string> {
    const { cards, logger } = this.#options;
    try {
      return await cards.awaitAnswer(cardId, input.signal);
    } catch (error) {
      if (input.signal.aborted) {
        // The turn is over: the card must not stay open for an answer nobody waits for.
        await cards.cancel(input.session.id).catch((cause: unknown) => logger.warn({ err: cause, sessionId: input.session.id }, 'could not withdraw the question card'));
      }
      throw error;
    } finally {
      if (!input.signal.aborted) await input.emit({ type: 'question_answered', questionId: cardId });
    }
  }
}

/**
 * {{result}} of a command the user did not allow, as relay_tool refuses (REMOTE_RELAY_PERMISSION): from the
 * decision, or undefined (the card was withdrawn).
 */
export function commandRefused(answer: string | undefined): { ok: false; code: string; error: string } {
  const why =
    answer === undefined
      ? 'The card was withdrawn before the user decided'
      : answer === APPROVAL_ANSWERS.denied
        ? 'The user chose Deny'
        : `The card was decided "${answer}", not ${APPROVAL_ANSWERS.allowed}`;
  return { ok: false, code: 'REMOTE_RELAY_PERMISSION', error: `${why}: the command did not run.` };
}
