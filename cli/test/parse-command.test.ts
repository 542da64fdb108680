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
    [['session', 'create', '--external', '--title', '  ']],
    [['session', 'delete']],
    [['down']],
    [['up', 'now']],
    [['up', '--scope', 'all']],
  ])('refuses %j with a CliError', (argv) => {
    expect(() => parseCommand(argv)).toThrow(CliError);
  });
});
