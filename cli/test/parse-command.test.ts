import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { HELP_TEXT, parseCommand, USAGE_EXIT_CODE } from '../src/parse-command.ts';

describe('parseCommand', () => {
  it('reads up, with and without --json', () => {
    expect(parseCommand(['up'])).toEqual({ kind: 'up', json: false, signInLink: false });
    expect(parseCommand(['up', '--json'])).toEqual({ kind: 'up', json: true, signInLink: false });
    expect(parseCommand(['up', '--json', '--sign-in-link'])).toEqual({ kind: 'up', json: true, signInLink: true });
    expect(parseCommand(['up', '--replicas', 'subscription=2,session=2'])).toEqual({
      kind: 'up',
      json: false,
      signInLink: false,
      replicas: { subscription: 2, session: 2 },
    });
    expect(parseCommand(['up', '--replicas=session=3'])).toMatchObject({ replicas: { session: 3 } });
  });

  it('reads sessions with its scope, active by default, and --page N or --all', () => {
    expect(parseCommand(['sessions'])).toEqual({ kind: 'sessions', scope: 'active', all: false, json: false });
    expect(parseCommand(['sessions', '--scope', 'all', '--json'])).toEqual({ kind: 'sessions', scope: 'all', all: false, json: true });
    expect(parseCommand(['sessions', '--scope=archived'])).toEqual({ kind: 'sessions', scope: 'archived', all: false, json: false });
    expect(parseCommand(['sessions', '--page', '3'])).toEqual({ kind: 'sessions', scope: 'active', page: 3, all: false, json: false });
    expect(parseCommand(['sessions', '--all', '--scope', 'all'])).toEqual({ kind: 'sessions', scope: 'all', all: true, json: false });
  });

  it('refuses sessions with both --page and --all, with the usage exit code', () => {
    expect(() => parseCommand(['sessions', '--page', '2', '--all'])).toThrow(expect.objectContaining({ exitCode: USAGE_EXIT_CODE }));
  });

  it('reads session create --external with a title, none by default (the command picks one no session has)', () => {
    expect(parseCommand(['session', 'create', '--external', '--title', 'My IDE'])).toEqual({ kind: 'create-session', title: 'My IDE', json: false });
    expect(parseCommand(['session', 'create', '--external', '--json'])).toEqual({ kind: 'create-session', json: true });
  });

  it('refuses more than one card to allow or deny, with the usage exit code', () => {
    expect(() => parseCommand(['deny', 'a', 'b'])).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('relay deny CARD') }));
  });

  it('reads session create --text as a hosted session that waits for its reply', () => {
    expect(parseCommand(['session', 'create', '--title', 'Demo', '--text', 'reply hello'])).toEqual({
      kind: 'create-hosted-session',
      session: { text: 'reply hello', title: 'Demo' },
      wait: true,
      json: false,
    });
    expect(
      parseCommand([
        'session',
        'create',
        '--text',
        'x',
        '--provider',
        'script',
        '--model',
        'script-1',
        '--cwd',
        '/srv',
        '--mode',
        'ask',
        '--no-wait',
        '--json',
      ]),
    ).toEqual({
      kind: 'create-hosted-session',
      session: { text: 'x', provider: 'script', model: 'script-1', cwd: '/srv', mode: 'ask' },
      wait: false,
      json: true,
    });
  });

  it('reads say with the rest of the words as the text', () => {
    expect(parseCommand(['say', 's1', 'reply', 'hello'])).toEqual({ kind: 'say', sessionId: 's1', text: 'reply hello', wait: true, json: false });
    expect(parseCommand(['say', 's1', 'reply hello', '--no-wait', '--json'])).toEqual({
      kind: 'say',
      sessionId: 's1',
      text: 'reply hello',
      wait: false,
      json: true,
    });
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
    [['sessions', '--page', 'two']],
    [['sessions', '--page', '-1']],
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
    [['up', '--replicas', 'gateway=2']],
    [['up', '--replicas', 'session=0']],
    [['up', '--replicas', 'session=9']],
    [['up', '--replicas', 'session']],
    [['up', '--replicas', '']],
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
    expect(parseCommand(['answer', 'ask_1', 'after', 'the', 'review'])).toEqual({
      kind: 'answer',
      id: 'ask_1',
      answer: 'after the review',
      dismiss: false,
      json: false,
    });
    expect(parseCommand(['answer', 'card_1', '--choice', 'Merge'])).toEqual({
      kind: 'answer',
      id: 'card_1',
      answer: '',
      choice: 'Merge',
      dismiss: false,
      json: false,
    });
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

describe('parseCommand: words and options in any order', () => {
  it('reads options before, between and after the words', () => {
    const expected = { kind: 'answer', id: 'card_1', answer: 'after the review', choice: 'Merge', dismiss: false, json: true };
    expect(parseCommand(['answer', 'card_1', '--choice', 'Merge', 'after', 'the', 'review', '--json'])).toEqual(expected);
    expect(parseCommand(['--json', 'answer', '--choice=Merge', 'card_1', 'after', 'the', 'review'])).toEqual(expected);
    expect(parseCommand(['say', '--no-wait', 's1', 'reply', 'hello'])).toEqual({ kind: 'say', sessionId: 's1', text: 'reply hello', wait: false, json: false });
    expect(parseCommand(['session', 'show', '--last', '3', 's1'])).toEqual({ kind: 'show-session', sessionId: 's1', last: 3, json: false });
  });

  it('takes the word after a value option as its value, even one that starts with -', () => {
    expect(parseCommand(['session', 'create', '--text', '-v please', '--title', 'Flags'])).toMatchObject({ session: { text: '-v please', title: 'Flags' } });
  });

  it('reads every word after -- as text', () => {
    expect(parseCommand(['say', 's1', '--', '--json', 'is', 'a', 'flag'])).toEqual({
      kind: 'say',
      sessionId: 's1',
      text: '--json is a flag',
      wait: true,
      json: false,
    });
  });

  it('refuses an unknown option as a usage error (exit code 2)', () => {
    expect(() => parseCommand(['answer', 'card_1', 'yes', '--chioce', 'x'])).toThrow(expect.objectContaining({ exitCode: USAGE_EXIT_CODE }));
  });
});

describe("parseCommand: the user's side of a session", () => {
  it.each([
    [['session', 'stop', '3f9c2a1e'], { kind: 'stop-session', sessionId: '3f9c2a1e', json: false }],
    [['session', 'archive', 'Review', '--json'], { kind: 'archive-session', sessionId: 'Review', archived: true, json: true }],
    [['session', 'unarchive', '3f9c'], { kind: 'archive-session', sessionId: '3f9c', archived: false, json: false }],
    [['session', 'rename', '3f9c', 'Release', 'notes'], { kind: 'rename-session', sessionId: '3f9c', title: 'Release notes', json: false }],
    [['session', 'group', '3f9c', 'Release', '--json'], { kind: 'group-session', sessionId: '3f9c', group: 'Release', json: true }],
    [['session', 'group', '3f9c', '--none'], { kind: 'group-session', sessionId: '3f9c', group: '', json: false }],
    [['session', 'show', '3f9c', '--message', 'm9'], { kind: 'show-session', sessionId: '3f9c', message: 'm9', json: false }],
    [['usage'], { kind: 'usage', json: false }],
    [['usage', '--json'], { kind: 'usage', json: true }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([
    [['session', 'stop']],
    [['session', 'archive', 'a', 'b']],
    [['session', 'rename', '3f9c']],
    [['session', 'group', '3f9c']],
    [['session', 'group', '3f9c', 'Release', '--none']],
    [['usage', 'now']],
    [['session', 'show', '3f9c', '--message', 'm9', '--last', '3']],
  ])('refuses %j', (argv) => {
    expect(() => parseCommand(argv)).toThrow(CliError);
  });

  it('documents the exit codes and how a session is named in the help', () => {
    expect(HELP_TEXT).toContain('Exit codes: 0 done, 1 refused or failed (the relay said no, or could not be reached), 2 the command line is wrong.');
    expect(HELP_TEXT).toContain('the start of its id');
    for (const usage of [
      'relay session stop SESSION',
      'relay session archive SESSION',
      'relay session unarchive SESSION',
      'relay session rename SESSION TITLE',
      'relay session group SESSION GROUP|--none',
      'relay usage',
    ]) {
      expect(HELP_TEXT).toContain(usage);
    }
  });
});
