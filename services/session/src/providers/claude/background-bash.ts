/**
 * Claude Code's Bash with run_in_background (pure): such a command would run inside Claude Code's own process,
 * which ends when the relay closes the query after the turn's result, so it would die unread. The relay runs it
 * as its own background task instead and answers Claude Code with these words in place of the tool's run.
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

/**
 * The PreToolUse hook's answer: a background Bash always asks. Claude Code allows a read-only command (an `ls`, a
 * `tail -f`) without asking, and canUseTool, where the relay takes it over, would never see it.
 */
export function askForBackgroundBash(input: HookInput): HookJSONOutput {
  if (input.hook_event_name !== 'PreToolUse' || typeof input.tool_input !== 'object' || input.tool_input === null) return {};
  if (backgroundBashCall(input.tool_name, input.tool_input as Record<string, unknown>) === undefined) return {};
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: BACKGROUND_BASH_REASON } };
}

/** The hook as query() takes it. */
export const BACKGROUND_BASH_ASKS: HookCallbackMatcher = { matcher: 'Bash', hooks: [async (input) => askForBackgroundBash(input)] };

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
