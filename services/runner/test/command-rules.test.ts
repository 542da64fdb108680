import { describe, expect, it } from 'vitest';
import { commandRefusal, FIRST_SANDBOX_UID, folderClaim, isUnder } from '../src/domain/command-rules.ts';

const ok = { argv: ['sh', '-c', 'true'], folder: '/workspace/alice', realFolder: '/workspace/alice', realWorkspace: '/workspace', uid: FIRST_SANDBOX_UID };

describe('what the runner refuses before it starts a command', () => {
  it('starts a command as a sandbox user in a folder below the workspace', () => {
    expect(commandRefusal(ok)).toBeUndefined();
    expect(commandRefusal({ ...ok, realFolder: '/workspace/alice/deep', uid: FIRST_SANDBOX_UID + 7 })).toBeUndefined();
  });

  it.each([
    ['an empty argv', { argv: [] }, /argv is empty/],
    ['an empty program', { argv: [''] }, /argv is empty/],
    ['root', { uid: 0 }, /uid 0 is no sandbox user's/],
    ["the relay's own user", { uid: 1000 }, /uid 1000 is no sandbox user's/],
    ['a uid that is no integer', { uid: FIRST_SANDBOX_UID + 0.5 }, /no sandbox user's/],
    ['a relative folder', { folder: 'alice' }, /not an absolute path/],
    ['a folder that is no folder', { realFolder: undefined }, /not a folder/],
    ['a folder whose real path lies outside', { realFolder: '/etc' }, /not under the runner's workspace/],
    ['a sibling whose name starts like the workspace', { realFolder: '/workspace-other/x' }, /not under/],
    ["the whole workspace, every user's folders in it", { realFolder: '/workspace' }, /the whole workspace/],
  ])('refuses %s', (_name, change, why) => {
    expect(commandRefusal({ ...ok, ...change })).toMatch(why);
  });

  it("a folder is the user's own, taken when no sandbox user owns it, refused when another does", () => {
    expect(folderClaim({ folder: '/w/a', owner: FIRST_SANDBOX_UID, uid: FIRST_SANDBOX_UID })).toBe('own');
    expect(folderClaim({ folder: '/w/a', owner: 1000, uid: FIRST_SANDBOX_UID })).toBe('take');
    expect(folderClaim({ folder: '/w/a', owner: 0, uid: FIRST_SANDBOX_UID })).toBe('take');
    expect(folderClaim({ folder: '/w/a', owner: FIRST_SANDBOX_UID + 1, uid: FIRST_SANDBOX_UID })).toEqual({
      refusal: "folder '/w/a' belongs to another user's commands",
    });
  });

  it('isUnder compares whole path segments', () => {
    expect(isUnder('/a/b', '/a')).toBe(true);
    expect(isUnder('/ab', '/a')).toBe(false);
    expect(isUnder('/anything', '/')).toBe(true);
  });
});
