import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { formatSettings } from '../src/commands/settings.ts';
import { parseCommand } from '../src/parse-command.ts';

describe('relay settings', () => {
  it.each([
    [['settings'], { kind: 'settings', change: {}, json: false }],
    [['settings', '--json'], { kind: 'settings', change: {}, json: true }],
    [
      ['settings', '--agent-sessions', 'on', '--max-wait', '900', '--max-turn', '30', '--task-quiet', '15'],
      { kind: 'settings', change: { agent_sessions_enabled: true, max_wait_seconds: 900, max_turn_minutes: 30, task_quiet_minutes: 15 }, json: false },
    ],
    [['settings', '--agent-sessions=off', '--json'], { kind: 'settings', change: { agent_sessions_enabled: false }, json: true }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([
    [['settings', '--agent-sessions', 'yes'], '--agent-sessions must be on or off'],
    [['settings', '--max-wait', '90s'], '--max-wait must be a whole number'],
    [['settings', '--task-quiet=-5'], '--task-quiet must be a whole number'],
    [['settings', '--max-turn', '1.5'], '--max-turn must be a whole number'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(new CliError(message));
  });

  it('refuses an option it does not know', () => {
    expect(() => parseCommand(['settings', '--quiet', '5'])).toThrow(CliError);
  });

  it('shows each setting on its own line, named as Settings → Relays names it', () => {
    expect(formatSettings({ agentSessionsEnabled: true, maxWaitSeconds: 600, maxTurnMinutes: 60, taskQuietMinutes: 10 }).split('\n')).toEqual([
      'Agents may start and use sessions on this relay: on',
      'Longest wait per tool call: 600 s',
      'Max turn duration: 60 min',
      'A running task counts as quiet after: 10 min without output',
    ]);
  });
});
