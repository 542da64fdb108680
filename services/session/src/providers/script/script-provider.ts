/**
 * The `script` provider: a real, deterministic agent whose behaviour is the prompt itself (see
 * parse-script.ts and the service README). It reaches relay_tool only through the gateway.
 */
import type { Logger } from '@relay/telemetry';
import type { BackgroundTaskStarter } from '../background-task-starter.ts';
import { ALWAYS_AVAILABLE, TurnFailed, type Availability, type Provider, type TurnInput, type TurnReply } from '../provider.ts';
import type { QuestionCards } from '../question-cards.ts';
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

  /** Starts a background task; it runs on after the turn. Its id, status and command become {{result}}. */
  async #startTask(input: TurnInput, command: string): Promise<unknown> {
    const tasks = this.#options.tasks;
    if (tasks === undefined) throw new TurnFailed(TASK_UNAVAILABLE);
    await input.emit({ type: 'tool_call', name: 'task', input: { command } });
    try {
      const task = await tasks.start({ sessionId: input.session.id, cwd: input.session.cwd, command });
      return { taskId: task.id, status: task.status, description: task.description };
    } catch (error) {
      throw new TurnFailed(`task: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async #askUser(input: TurnInput, question: string, options: string[]): Promise<string> {
    const { cards, logger } = this.#options;
    const cardId = await cards.raise({ userId: input.session.userId, sessionId: input.session.id, question, options });
    await input.emit({ type: 'question_raised', question: { id: cardId, kind: 'ask_user', question, options } });
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
