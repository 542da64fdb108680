import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { parseCommand } from '../src/parse-command.ts';

describe('parseCommand', () => {
  it('reads up, with and without --json', () => {
    expect(parseCommand(['up'])).toEqual({ kind: 'up', json: false });
    expect(parseCommand(['up', '--json'])).toEqual({ kind: 'up', json: true });
  });

  it('reads sessions with its scope, active by default', () => {
    expect(parseCommand(['sessions'])).toEqual({ kind: 'sessions', scope: 'active', json: false });
    expect(parseCommand(['sessions', '--scope', 'all', '--json'])).toEqual({ kind: 'sessions', scope: 'all', json: true });
    expect(parseCommand(['sessions', '--scope=archived'])).toEqual({ kind: 'sessions', scope: 'archived', json: false });
  });

  it('reads session create --external with a title, "Terminal" by default', () => {
    expect(parseCommand(['session', 'create', '--external', '--title', 'My IDE'])).toEqual({ kind: 'create-session', title: 'My IDE', json: false });
    expect(parseCommand(['session', 'create', '--external', '--json'])).toEqual({ kind: 'create-session', title: 'Terminal', json: true });
  });

  it('reads session create --text as a hosted session that waits for its reply', () => {
    expect(parseCommand(['session', 'create', '--title', 'Demo', '--text', 'reply hello'])).toEqual({
      kind: 'create-hosted-session',
      session: { text: 'reply hello', title: 'Demo' },
      wait: true,
      json: false,
    });
    expect(
      parseCommand(['session', 'create', '--text', 'x', '--provider', 'script', '--model', 'script-1', '--cwd', '/srv', '--mode', 'ask', '--no-wait', '--json']),
    ).toEqual({
      kind: 'create-hosted-session',
      session: { text: 'x', provider: 'script', model: 'script-1', cwd: '/srv', mode: 'ask' },
      wait: false,
      json: true,
    });
  });

  it('reads say with the rest of the words as the text', () => {
    expect(parseCommand(['say', 's1', 'reply', 'hello'])).toEqual({ kind: 'say', sessionId: 's1', text: 'reply hello', wait: true, json: false });
    expect(parseCommand(['say', 's1', 'reply hello', '--no-wait', '--json'])).toEqual({ kind: 'say', sessionId: 's1', text: 'reply hello', wait: false, json: true });
  });

  it('reads session show and session set', () => {
    expect(parseCommand(['session', 'show', 's1'])).toEqual({ kind: 'show-session', sessionId: 's1', json: false });
    expect(parseCommand(['session', 'show', 's1', '--last', '5', '--json'])).toEqual({ kind: 'show-session', sessionId: 's1', last: 5, json: true });
    expect(parseCommand(['session', 'set', 's1', '--mode', 'plan'])).toEqual({ kind: 'set-session', sessionId: 's1', mode: 'plan', json: false });
    expect(parseCommand(['session', 'set', 's1', '--may-create-sessions', 'on', '--mode', 'agent'])).toEqual({
      kind: 'set-session',
      sessionId: 's1',
      mode: 'agent',
      mayCreateSessions: true,
      json: false,
    });
    expect(parseCommand(['session', 'set', 's1', '--may-create-sessions', 'off'])).toMatchObject({ mayCreateSessions: false });
  });

  it('gives help for no arguments, help, and --help anywhere', () => {
    expect(parseCommand([])).toEqual({ kind: 'help' });
    expect(parseCommand(['help'])).toEqual({ kind: 'help' });
    expect(parseCommand(['--help'])).toEqual({ kind: 'help' });
    expect(parseCommand(['sessions', '-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['sessions', '--scope', 'old']],
    [['sessions', '--verbose']],
    [['session', 'create', '--title', 'x']],
    [['session', 'create', '--text', '  ']],
    [['session', 'create', '--text', 'x', '--mode', 'yolo']],
    [['session', 'create', '--text', 'x', '--model', '']],
    [['session', 'create', '--external', '--text', 'x']],
    [['say', 's1']],
    [['say']],
    [['session', 'show']],
    [['session', 'show', 's1', 's2']],
    [['session', 'show', 's1', '--last', '0']],
    [['session', 'show', 's1', '--last', '101']],
    [['session', 'set', 's1']],
    [['session', 'set', 's1', '--mode', 'auto']],
    [['session', 'set', 's1', '--may-create-sessions', 'yes']],
    [['session', 'create', '--external', '--title', '  ']],
    [['session', 'delete']],
    [['down']],
    [['up', 'now']],
    [['up', '--scope', 'all']],
  ])('refuses %j with a CliError', (argv) => {
    expect(() => parseCommand(argv)).toThrow(CliError);
  });
});
