// Which Bash calls of Claude Code's the relay runs as its own background task, and what the model is told.
import { describe, expect, it } from 'vitest';
import type { HookInput } from '@anthropic-ai/claude-agent-sdk';
import {
  askForEveryCommand,
  backgroundBashCall,
  EVERY_COMMAND_ASKS,
  notStartedMessage,
  startedInBackgroundMessage,
} from '../../src/adapters/providers/claude/background-bash.ts';

describe('a background Bash call', () => {
  it('is Bash with run_in_background: true and a command; its description when the agent gave one', () => {
    expect(backgroundBashCall('Bash', { command: 'npm test', description: ' Run the tests ', run_in_background: true })).toEqual({
      command: 'npm test',
      description: 'Run the tests',
    });
    expect(backgroundBashCall('Bash', { command: 'npm test', run_in_background: true })).toEqual({ command: 'npm test', description: undefined });
    expect(backgroundBashCall('Bash', { command: 'npm test', description: '  ', run_in_background: true })).toEqual({
      command: 'npm test',
      description: undefined,
    });
  });

  it('is not a foreground Bash, another tool, or a call without a command', () => {
    expect(backgroundBashCall('Bash', { command: 'npm test' })).toBeUndefined();
    expect(backgroundBashCall('Bash', { command: 'npm test', run_in_background: false })).toBeUndefined();
    expect(backgroundBashCall('Bash', { command: 'npm test', run_in_background: 'true' })).toBeUndefined();
    expect(backgroundBashCall('Write', { command: 'npm test', run_in_background: true })).toBeUndefined();
    expect(backgroundBashCall('Bash', { command: ' ', run_in_background: true })).toBeUndefined();
    expect(backgroundBashCall('Bash', { run_in_background: true })).toBeUndefined();
  });

  it('is answered with the task id, that it runs on, how to read it with relay_tool, and not to run it again', () => {
    expect(startedInBackgroundMessage({ taskId: 'task_0123456789abcdef', sessionId: 's-1' })).toBe(
      "The relay started this command as its background task task_0123456789abcdef, in this session's folder, instead of running it here. " +
        'It keeps running after this turn ends, and its output and exit status are kept. Do not run the command again. ' +
        'To read its output and status, call mcp__relay__relay_tool with {"action":"read_task_output","relay":"this","session":"s-1","task_id":"task_0123456789abcdef"} (add "lines" for more than the last 50).',
    );
  });

  it('that could not start is answered with why, and that it did not run', () => {
    expect(notStartedMessage('the session is gone')).toBe(
      'The relay could not start this command as a background task: the session is gone. The command did not run.',
    );
  });

  it('always asks (the PreToolUse hook), so that a read-only one Claude Code would allow unasked comes to canUseTool too', async () => {
    const preToolUse = (toolName: string, toolInput: unknown) =>
      ({
        hook_event_name: 'PreToolUse',
        tool_name: toolName,
        tool_input: toolInput,
        tool_use_id: 't1',
        session_id: 'cc-1',
        transcript_path: '',
        cwd: '/tmp',
      }) as unknown as HookInput;
    const asks = (reason: string) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason } });
    expect(askForEveryCommand(preToolUse('Bash', { command: 'ls', run_in_background: true }))).toEqual(asks('in the background, as a relay task'));
    expect(EVERY_COMMAND_ASKS.matcher).toBe('Bash');
    expect(
      await EVERY_COMMAND_ASKS.hooks[0]!(preToolUse('Bash', { command: 'tail -f log', run_in_background: true }), 't1', {
        signal: new AbortController().signal,
      }),
    ).toEqual(asks('in the background, as a relay task'));
  });
});

describe('a foreground Bash call', () => {
  it('asks too, a read-only one included: every command waits on the owner’s Allow', () => {
    const preToolUse = (toolName: string, toolInput: unknown) =>
      ({
        hook_event_name: 'PreToolUse',
        tool_name: toolName,
        tool_input: toolInput,
        tool_use_id: 't1',
        session_id: 'cc-1',
        transcript_path: '',
        cwd: '/tmp',
      }) as unknown as HookInput;
    const asks = {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'a command runs only on your Allow' },
    };
    expect(askForEveryCommand(preToolUse('Bash', { command: 'cat .relay/credentials.json' }))).toEqual(asks);
    expect(askForEveryCommand(preToolUse('Bash', null))).toEqual(asks);
    expect(askForEveryCommand(preToolUse('Read', { file_path: '/etc/hosts' }))).toEqual({});
  });
});
