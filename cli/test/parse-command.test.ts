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

describe('parseCommand: the Inbox', () => {
  it('reads relay inbox', () => {
    expect(parseCommand(['inbox', '--json'])).toEqual({ kind: 'inbox', json: true });
  });

  it('reads relay answer with a text, a choice or --dismiss', () => {
    expect(parseCommand(['answer', 'ask_1', 'after', 'the', 'review'])).toEqual({ kind: 'answer', id: 'ask_1', answer: 'after the review', dismiss: false, json: false });
    expect(parseCommand(['answer', 'card_1', '--choice', 'Merge'])).toEqual({ kind: 'answer', id: 'card_1', answer: '', choice: 'Merge', dismiss: false, json: false });
    expect(parseCommand(['answer', 'ask_1', '--dismiss'])).toEqual({ kind: 'answer', id: 'ask_1', answer: '', dismiss: true, json: false });
  });

  it('refuses relay answer without an answer, or a dismiss with one', () => {
    expect(() => parseCommand(['answer', 'ask_1'])).toThrow(/needs an answer/);
    expect(() => parseCommand(['answer', 'ask_1', 'yes', '--dismiss'])).toThrow(/--dismiss takes no answer/);
    expect(() => parseCommand(['answer'])).toThrow(/needs an ask or card id/);
  });

  it('reads relay allow and relay deny', () => {
    expect(parseCommand(['allow', 'card_1'])).toEqual({ kind: 'decide', id: 'card_1', decision: 'allow', json: false });
    expect(parseCommand(['deny', 'card_1', '--json'])).toEqual({ kind: 'decide', id: 'card_1', decision: 'deny', json: true });
    expect(() => parseCommand(['allow'])).toThrow(/needs a card id/);
  });
});
