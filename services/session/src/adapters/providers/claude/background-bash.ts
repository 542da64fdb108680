/**
 * Claude Code's Bash (pure): every call asks the session owner first (the hook below). One with run_in_background
 * would run inside Claude Code's own process, which ends when the relay closes the query after the turn's result,
 * so it would die unread: the relay runs it as its own background task instead and answers Claude Code with these
 * words in place of the tool's run.
 */
import type { HookCallbackMatcher, HookInput, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { RELAY_TOOL_FOR_CLAUDE } from './claude-query-options.ts';

/** A Bash call the relay runs as a background task: its command and the agent's description of it. */
export interface BackgroundBashCall {
  command: string;
  description: string | undefined;
}

/** The call when it is Bash with run_in_background: true and a command (sdk-tools' BashInput); else undefined. */
export function backgroundBashCall(toolName: string, input: Readonly<Record<string, unknown>>): BackgroundBashCall | undefined {
  if (toolName !== 'Bash' || input['run_in_background'] !== true) return undefined;
  const command = input['command'];
  if (typeof command !== 'string' || command.trim() === '') return undefined;
  const description = input['description'];
  return { command, description: typeof description === 'string' && description.trim() !== '' ? description.trim() : undefined };
}

/** Why a background Bash asks, as the card shows it. */
export const BACKGROUND_BASH_REASON = 'in the background, as a relay task';
/** Why any other Bash asks. */
export const COMMAND_REASON = 'a command runs only on your Allow';

/**
 * The PreToolUse hook's answer: every Bash asks, on the session owner's card. Claude Code allows a read-only command
 * (an `ls`, a `cat`, a `tail -f`) without asking, and canUseTool, where the card is raised (and a background one is
 * taken over), would never see it: a prompt from another agent or relay could read the machine unasked.
 */
export function askForEveryCommand(input: HookInput): HookJSONOutput {
  if (input.hook_event_name !== 'PreToolUse' || input.tool_name !== 'Bash') return {};
  const toolInput = typeof input.tool_input === 'object' && input.tool_input !== null ? (input.tool_input as Record<string, unknown>) : {};
  const reason = backgroundBashCall(input.tool_name, toolInput) === undefined ? COMMAND_REASON : BACKGROUND_BASH_REASON;
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason } };
}

/** The hook as query() takes it. */
export const EVERY_COMMAND_ASKS: HookCallbackMatcher = { matcher: 'Bash', hooks: [async (input) => askForEveryCommand(input)] };

/**
 * What Claude Code hands the model instead of the Bash result: the relay started the command as task `taskId`,
 * it runs on after this turn, how to read it with relay_tool (spec, read_task_output), and not to run it again.
 */
export function startedInBackgroundMessage(input: { taskId: string; sessionId: string }): string {
  const read = JSON.stringify({ action: 'read_task_output', relay: 'this', session: input.sessionId, task_id: input.taskId });
  return [
    `The relay started this command as its background task ${input.taskId}, in this session's folder, instead of running it here.`,
    'It keeps running after this turn ends, and its output and exit status are kept. Do not run the command again.',
    `To read its output and status, call ${RELAY_TOOL_FOR_CLAUDE} with ${read} (add "lines" for more than the last 50).`,
  ].join(' ');
}

/** What the model is told when the relay could not start the command: it did not run. */
export function notStartedMessage(reason: string): string {
  return `The relay could not start this command as a background task: ${reason}. The command did not run.`;
}
