import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { formatAddedUser, formatNewToken, formatUsers, formatUser, userNamed } from '../src/commands/users.ts';
import { HELP_TEXT, parseCommand } from '../src/parse-command.ts';

describe('relay users and whoami', () => {
  it.each([
    [['users'], { kind: 'users', json: false }],
    [['users', '--json'], { kind: 'users', json: true }],
    [['users', 'add', 'Ada'], { kind: 'add-user', name: 'Ada', admin: false, json: false }],
    [['users', 'add', 'Ada', 'Lovelace', '--admin', '--json'], { kind: 'add-user', name: 'Ada Lovelace', admin: true, json: true }],
    [['users', 'remove', 'Bob'], { kind: 'remove-user', name: 'Bob', json: false }],
    [['users', 'remove', 'Bob', 'Smith', '--json'], { kind: 'remove-user', name: 'Bob Smith', json: true }],
    [['users', 'token', 'Bob'], { kind: 'user-token', name: 'Bob', revoke: false, json: false }],
    [['users', 'token', 'Bob', '--revoke', '--json'], { kind: 'user-token', name: 'Bob', revoke: true, json: true }],
    [['session', 'token', 's-1'], { kind: 'session-token', sessionId: 's-1', revoke: false, json: false }],
    [['session', 'token', 's-1', '--revoke'], { kind: 'session-token', sessionId: 's-1', revoke: true, json: false }],
    [['whoami'], { kind: 'whoami', json: false }],
    [['whoami', '--json'], { kind: 'whoami', json: true }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([
    [['users', 'add'], "relay users add needs the new user's name: relay users add NAME [--admin]"],
    [['users', 'add', '  '], "relay users add needs the new user's name: relay users add NAME [--admin]"],
    [['users', 'remove'], "relay users remove needs the user's name or id: relay users remove NAME"],
    [['users', 'token'], "relay users token needs the user's name or id: relay users token NAME [--revoke]"],
    [['session', 'token'], 'relay session token needs a session id; relay sessions lists them'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(new CliError(message));
  });

  it('refuses what it does not know', () => {
    expect(() => parseCommand(['users', 'delete', 'Ada'])).toThrow(CliError);
    expect(() => parseCommand(['users', 'remove', 'Ada', '--revoke'])).toThrow(CliError);
    expect(() => parseCommand(['users', 'add', 'Ada', '--role', 'admin'])).toThrow(CliError);
    expect(() => parseCommand(['whoami', 'Ada'])).toThrow(CliError);
  });

  it('lists users as an aligned table, and says when there are none', () => {
    expect(
      formatUsers([
        { id: 'u1', name: 'Ada', role: 'admin', createdAt: '2026-11-01T09:00:00.000Z' },
        { id: 'u2', name: 'Bob', role: 'member', createdAt: '2026-11-02T09:00:00.000Z' },
      ]).split('\n'),
    ).toEqual(['ID  NAME  ROLE    SINCE', 'u1  Ada   admin   2026-11-01T09:00:00.000Z', 'u2  Bob   member  2026-11-02T09:00:00.000Z']);
    expect(formatUsers([])).toBe('No users.');
    expect(formatUser({ id: 'u2', name: 'Bob', role: 'member' })).toBe('u2  Bob  member');
  });

  it('prints a new token with a line saying it is shown once', () => {
    expect(formatAddedUser({ user: { id: 'u3', name: 'Cy', role: 'member' }, token: 'rly_u_abc' }).split('\n')).toEqual([
      'Added Cy (member), id u3.',
      'Token: rly_u_abc',
      'The token is shown only this once: give it to them now (RELAY_TOKEN); the relay keeps only its hash.',
    ]);
  });

  it('finds a user by id, else by name case aside, and says when there is none', () => {
    const users = [
      { id: 'u1', name: 'Ada', role: 'admin' as const },
      { id: 'u2', name: 'u1', role: 'member' as const },
    ];
    expect(userNamed(users, 'ada').id).toBe('u1');
    expect(userNamed(users, 'u1').id).toBe('u1');
    expect(() => userNamed(users, 'Eve')).toThrow(new CliError('no user named "Eve" on this relay; relay users lists them'));
  });

  it('prints a rotated token with a line saying it is shown once', () => {
    expect(formatNewToken("Bob's new token", 'rly_u_new').split('\n')).toEqual([
      "Bob's new token: rly_u_new",
      'The token is shown only this once; the old one no longer works.',
    ]);
  });

  it('lists the commands in the help text', () => {
    expect(HELP_TEXT).toContain('relay users [--json]');
    expect(HELP_TEXT).toContain('relay users add NAME [--admin] [--json]');
    expect(HELP_TEXT).toContain('relay whoami [--json]');
    expect(HELP_TEXT).toContain('relay users remove NAME [--json]');
    expect(HELP_TEXT).toContain('relay users token NAME [--revoke] [--json]');
    expect(HELP_TEXT).toContain('relay session token SESSION [--revoke] [--json]');
  });
});
