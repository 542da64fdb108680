import { describe, expect, it } from 'vitest';
import { commandRefusal, isUnder } from '../src/domain/command-rules.ts';

const ok = { argv: ['sh', '-c', 'true'], folder: '/workspace/alice', realFolder: '/workspace/alice', realWorkspace: '/workspace' };

describe('what the runner refuses before it starts a command', () => {
  it('starts a command in the workspace or a folder below it', () => {
    expect(commandRefusal(ok)).toBeUndefined();
    expect(commandRefusal({ ...ok, realFolder: '/workspace' })).toBeUndefined();
  });

  it.each([
    ['an empty argv', { argv: [] }, /argv is empty/],
    ['an empty program', { argv: [''] }, /argv is empty/],
    ['a relative folder', { folder: 'alice' }, /not an absolute path/],
    ['a folder that is no folder', { realFolder: undefined }, /not a folder/],
    ['a folder whose real path lies outside', { realFolder: '/etc' }, /not under the runner's workspace/],
    ['a sibling whose name starts like the workspace', { realFolder: '/workspace-other/x' }, /not under/],
  ])('refuses %s', (_name, change, why) => {
    expect(commandRefusal({ ...ok, ...change })).toMatch(why);
  });

  it('isUnder compares whole path segments', () => {
    expect(isUnder('/a/b', '/a')).toBe(true);
    expect(isUnder('/ab', '/a')).toBe(false);
    expect(isUnder('/anything', '/')).toBe(true);
  });
});
