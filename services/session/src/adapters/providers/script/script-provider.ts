/**
 * The `script` provider: a real, deterministic agent whose behaviour is the prompt itself (see
 * parse-script.ts and the service README). It reaches relay_tool only through the gateway, and runs a
 * command (`task`) only on the session owner's Allow. Before each step it saves its position (a resume point), so a
 * replica the turn is handed to goes on from that step; a step whose effect was under way does not run twice.
 */
import type { Logger } from '@relay/telemetry';
import type { BackgroundTaskStarter } from '../../../app/tasks/background-task-starter.ts';
import {
  ALWAYS_AVAILABLE,
  isHandedOver,
  TurnFailed,
  type Availability,
  type Provider,
  type ResumePoint,
  type TurnInput,
  type TurnReply,
} from '../../../app/turns/provider.ts';
import { commandCard } from '../../../app/turns/command-card.ts';
import { APPROVAL_ANSWERS, pendingQuestion, type CardRequest, type QuestionCards } from '../../../app/turns/question-cards.ts';
import { interpolate, type ScriptVariables } from './interpolate.ts';
import { GatewayMcp } from '../gateway-mcp.ts';
import { callRelayTool } from './mcp-relay-tool.ts';
import { jsonObjectProblem, parseScript, parseSeconds, type ScriptStep } from './parse-script.ts';

export const SCRIPT_MODEL = 'script-1';
/** The reply to a prompt that is not in the language, so nothing runs away. */
export const NO_STEPS_REPLY = 'script-1: no steps in the prompt';
export const TASK_UNAVAILABLE = 'task is not available yet';

/**
 * relay_tool actions that only read or wait: one under way when the turn was handed over is made again by the replica
 * that took it over. Any other action's call is not repeated.
 */
const REPEATABLE_ACTIONS: ReadonlySet<string> = new Set([
  'wait',
  'read_session',
  'list_sessions',
  'list_relays',
  'list_questions',
  'list_subscriptions',
  'list_schedules',
  'read_task_output',
  'relay_info',
  'usage',
]);

/** Where a script turn is: the resume point it saves before each step and goes on from on another replica. */
interface ScriptPosition extends ResumePoint {
  /** The index of the step it runs (or runs next). */
  step: number;
  variables: ScriptVariables;
  /** The reply's lines so far. */
  lines: string[];
  /** A wait step's end on the relay clock (ISO), once the step started. */
  until?: string;
  /** What the step did that must not be done twice (a relay_tool write, a command's start), while it was under way. */
  effect?: string;
}

/** Per step: what a turn's run keeps (its position, saved as the resume point) and its relay_tool connection. */
type RunState = { relayTool: GatewayMcp; position: ScriptPosition };

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

    const position = resumedPosition(input.resume);
    const resumedAt = script.steps[position.step];
    if (position.effect !== undefined && resumedAt !== undefined) {
      throw new TurnFailed(
        `script-1: line ${resumedAt.line}: ${position.effect} was under way when the relay handed this turn to another of its replicas; it is not done twice, so the turn ends here. Check what it did, then send again`,
      );
    }
    // Handed over: the reply so far shows again as the turn's in-flight text.
    if (position.lines.length > 0) await input.emit({ type: 'text', delta: position.lines.join('\n') });
    const state: RunState = { relayTool: new GatewayMcp(this.#options.gatewayUrl, input.token, 'relay-script-agent'), position };
    try {
      for (; position.step < script.steps.length; position.step++) {
        input.signal.throwIfAborted();
        await this.#run(script.steps[position.step]!, input, state);
        delete position.until;
      }
    } finally {
      await state.relayTool.close();
    }
    const { lines, variables } = position;
    if (lines.length > 0) return { text: lines.join('\n'), model: SCRIPT_MODEL };
    return { text: variables.result === undefined ? 'ok' : JSON.stringify(variables.result), model: SCRIPT_MODEL };
  }

  async #run(step: ScriptStep, input: TurnInput, state: RunState): Promise<void> {
    const { position } = state;
    const { variables } = position;
    switch (step.kind) {
      case 'reply': {
        await savePosition(input, position, false);
        const text = interpolate(step.text, variables);
        await input.emit({ type: 'text', delta: position.lines.length === 0 ? text : `\n${text}` });
        position.lines.push(text);
        return;
      }
      case 'relay_tool': {
        const json = interpolate(step.json, variables, { json: true });
        const problem = jsonObjectProblem(json);
        if (problem !== undefined) throw new TurnFailed(`script-1: line ${step.line}: ${problem}`);
        const args = JSON.parse(json) as Record<string, unknown>;
        const action = typeof args['action'] === 'string' ? args['action'] : '';
        if (REPEATABLE_ACTIONS.has(action)) await savePosition(input, position, action === 'wait');
        else await savePosition(input, { ...position, effect: `relay_tool ${action}` }, false);
        await input.emit({ type: 'tool_call', name: 'relay_tool', input: args });
        variables.result = await callRelayTool(state.relayTool, args, input.signal);
        return;
      }
      case 'wait': {
        const seconds = parseSeconds(interpolate(step.seconds, variables));
        if (seconds === undefined) throw new TurnFailed(`script-1: line ${step.line}: wait needs a number of seconds`);
        // Its end is kept: a replica that takes the turn over waits out only what is left of it. The agent's own
        // timer, not a wait for a person or a reply: a replica that stops lets it run out within its grace first.
        position.until ??= new Date(input.clock.now().getTime() + seconds * 1000).toISOString();
        await savePosition(input, position, false);
        const left = new Date(position.until).getTime() - input.clock.now().getTime();
        if (left > 0) await input.clock.sleep(left, input.signal);
        return;
      }
      case 'ask_user':
        // Its card is raised once per step (raiseId): the replica that takes the turn over waits on the same card.
        await savePosition(input, position, true);
        variables.answer = await this.#askUser(
          input,
          raiseId(input, step),
          interpolate(step.question, variables),
          step.options.map((option) => interpolate(option, variables)),
        );
        return;
      case 'fail':
        await savePosition(input, position, false);
        throw new TurnFailed(interpolate(step.message, variables));
      case 'task':
        await savePosition(input, position, true);
        variables.result = await this.#startTask(input, state, raiseId(input, step), interpolate(step.command, variables));
        return;
    }
  }

  /**
   * A command runs only on the session owner's Allow, whoever sent the prompt and in every mode: an approval card
   * in the session (and the owner's Inbox) while the turn waits, which only the owner decides. Allowed, it starts as
   * a background task that runs on after the turn, and {{result}} is its id, status and command; denied or
   * withdrawn, nothing runs and {{result}} is the refusal, for the script to read.
   */
  async #startTask(input: TurnInput, state: RunState, cardRaiseId: string, command: string): Promise<unknown> {
    const tasks = this.#options.tasks;
    if (tasks === undefined) throw new TurnFailed(TASK_UNAVAILABLE);
    await input.emit({ type: 'tool_call', name: 'task', input: { command } });
    // Where no sandbox can be had, nothing may run: no card asks for an Allow that could not be given.
    const refusal = tasks.refusal();
    if (refusal !== undefined) return { ok: false, code: 'REMOTE_RELAY_UNSUPPORTED', error: `The command did not run: ${refusal}.` };
    const card = commandCard({ agent: SCRIPT_MODEL, cwd: input.session.cwd, command, runsIn: tasks.where(input.session.cwd) });
    if (card === undefined) return { ok: false, code: 'REMOTE_RELAY_INVALID_INPUT', error: 'The command is too long to show on a card: it did not run.' };
    const cardId = await this.#raise(input, { kind: 'approval', userId: input.session.userId, sessionId: input.session.id, raiseId: cardRaiseId, ...card });
    const answer = await this.#answer(input, cardId).catch((error: unknown) => {
      // A card withdrawn (or lost) while the turn runs on is no Allow: the script reads that, nothing ran.
      if (!input.signal.aborted && error instanceof TurnFailed) return undefined;
      throw error;
    });
    if (answer !== APPROVAL_ANSWERS.allowed) return commandRefused(answer);
    await savePosition(input, { ...state.position, effect: 'the allowed command’s start' }, false);
    try {
      const task = await tasks.start({ sessionId: input.session.id, cwd: input.session.cwd, command });
      return { ok: true, taskId: task.id, status: task.status, description: task.description };
    } catch (error) {
      throw new TurnFailed(`task: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async #askUser(input: TurnInput, cardRaiseId: string, question: string, options: string[]): Promise<string> {
    return this.#answer(
      input,
      await this.#raise(input, { kind: 'question', userId: input.session.userId, sessionId: input.session.id, raiseId: cardRaiseId, question, options }),
    );
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
      if (input.signal.aborted && !isHandedOver(input.signal)) {
        // The turn is over: the card must not stay open for an answer nobody waits for. One handed over waits on.
        await cards
          .cancel(input.session.id)
          .catch((cause: unknown) => logger.warn({ err: cause, sessionId: input.session.id }, 'could not withdraw the question card'));
      }
      throw error;
    } finally {
      if (!input.signal.aborted) await input.emit({ type: 'question_answered', questionId: cardId });
    }
  }
}

/** The position a turn goes on from: the one it was handed over with, or its first step. */
function resumedPosition(resume: ResumePoint | undefined): ScriptPosition {
  if (resume === undefined) return { step: 0, variables: { answer: '' }, lines: [] };
  return structuredClone(resume) as ScriptPosition;
}

/**
 * Saves where the turn is before the step goes on; `parked`: the step only waits, so it may be handed over at once,
 * in which case the step does not begin here.
 */
async function savePosition(input: TurnInput, position: ScriptPosition, parked: boolean): Promise<void> {
  await input.emit({ type: 'resume_point', point: structuredClone(position), parked });
  input.signal.throwIfAborted();
}

/** The card of a turn's step, the same on every replica that runs the step (RaiseCard's raise_id). */
function raiseId(input: TurnInput, step: ScriptStep): string {
  return `${input.message.id}:${step.line}`;
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
