import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { formatAddedUser, formatUsers, formatUser } from '../src/commands/users.ts';
import { HELP_TEXT, parseCommand } from '../src/parse-command.ts';

describe('relay users and whoami', () => {
  it.each([
    [['users'], { kind: 'users', json: false }],
    [['users', '--json'], { kind: 'users', json: true }],
    [['users', 'add', 'Ada'], { kind: 'add-user', name: 'Ada', admin: false, json: false }],
    [['users', 'add', 'Ada', 'Lovelace', '--admin', '--json'], { kind: 'add-user', name: 'Ada Lovelace', admin: true, json: true }],
    [['whoami'], { kind: 'whoami', json: false }],
    [['whoami', '--json'], { kind: 'whoami', json: true }],
  ])('parses %j', (argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([
    [['users', 'add'], "relay users add needs the new user's name: relay users add NAME [--admin]"],
    [['users', 'add', '  '], "relay users add needs the new user's name: relay users add NAME [--admin]"],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(new CliError(message));
  });

  it('refuses what it does not know', () => {
    expect(() => parseCommand(['users', 'remove', 'Ada'])).toThrow(CliError);
    expect(() => parseCommand(['users', 'add', 'Ada', '--role', 'admin'])).toThrow(CliError);
    expect(() => parseCommand(['whoami', 'Ada'])).toThrow(CliError);
  });

  it('lists users one a line, and says when there are none', () => {
    expect(
      formatUsers([
        { id: 'u1', name: 'Ada', role: 'admin', createdAt: '2026-11-01T09:00:00.000Z' },
        { id: 'u2', name: 'Bob', role: 'member', createdAt: '2026-11-02T09:00:00.000Z' },
      ]).split('\n'),
    ).toEqual(['u1  Ada  admin  since 2026-11-01T09:00:00.000Z', 'u2  Bob  member  since 2026-11-02T09:00:00.000Z']);
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

  it('lists the commands in the help text', () => {
    expect(HELP_TEXT).toContain('relay users [--json]');
    expect(HELP_TEXT).toContain('relay users add NAME [--admin] [--json]');
    expect(HELP_TEXT).toContain('relay whoami [--json]');
  });
});
