import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { matchSession } from '../src/commands/session-name.ts';

const sessions = [
  { id: '3f9c2a1e-1111-4000-8000-000000000001', title: 'Review' },
  { id: '3f9c7b00-2222-4000-8000-000000000002', title: 'Release notes', archived: true as const },
  { id: 'a0b1c2d3-3333-4000-8000-000000000003', title: 'Review' },
  { id: 'b7k2m9q4-4444-4000-8000-000000000004', title: 'Terminal' },
];

describe('matchSession: SESSION on the command line', () => {
  it('takes an id, a unique id prefix (as relay_tool prints it) or an exact title', () => {
    expect(matchSession(sessions, '3f9c2a1e-1111-4000-8000-000000000001')).toBe(sessions[0]!.id);
    expect(matchSession(sessions, '3f9c2a1e')).toBe(sessions[0]!.id);
    expect(matchSession(sessions, '3F9C7')).toBe(sessions[1]!.id);
    expect(matchSession(sessions, 'Terminal')).toBe(sessions[3]!.id);
    expect(matchSession(sessions, 'Release notes')).toBe(sessions[1]!.id);
  });

  it('refuses an ambiguous name, listing the candidates (exit code 1)', () => {
    const refusal = (name: string) => {
      try {
        matchSession(sessions, name);
      } catch (error) {
        return error as CliError;
      }
      throw new Error(`"${name}" matched`);
    };
    const prefix = refusal('3f9c');
    expect(prefix).toBeInstanceOf(CliError);
    expect(prefix.exitCode).toBe(1);
    expect(prefix.message.split('\n')).toEqual([
      '"3f9c" could be 2 sessions; give more of the id:',
      '  3f9c2a1e-1111-4000-8000-000000000001  "Review"',
      '  3f9c7b00-2222-4000-8000-000000000002  "Release notes" (archived)',
    ]);
    expect(refusal('Review').message).toContain('"Review" could be 2 sessions');
  });

  it('refuses a name nothing matches, and a title that is only close', () => {
    expect(() => matchSession(sessions, 'ffff')).toThrow('no session "ffff"');
    expect(() => matchSession(sessions, 'terminal')).toThrow('no session "terminal"');
    expect(() => matchSession([], '3f9c')).toThrow(CliError);
  });
});
