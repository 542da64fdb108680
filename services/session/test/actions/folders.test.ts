import { describe, expect, it } from 'vitest';
import { checkFolder, isInsideAny, normaliseFolder } from '../../src/domain/sessions/folders.ts';
import { refusalOf } from './fixtures.ts';

const ROOTS = ['/home/dev', '/tmp'];

describe('folders', () => {
  it.each([
    ['/home/dev/shop/', '/home/dev/shop'],
    ['/home//dev/./shop', '/home/dev/shop'],
    ['/home/dev/shop/../web', '/home/dev/web'],
    ['/../..', '/'],
    ['relative/path', undefined],
    ['', undefined],
  ])('normalises %j to %j', (path, expected) => {
    expect(normaliseFolder(path)).toBe(expected);
  });

  it('accepts a root and folders below it, normalised', () => {
    expect(checkFolder('/home/dev', ROOTS)).toBe('/home/dev');
    expect(checkFolder('/tmp/build/../x/', ROOTS)).toBe('/tmp/x');
  });

  it('refuses a relative path, saying it must be absolute', () => {
    const error = refusalOf(() => checkFolder('shop', ROOTS));
    expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
    expect(error.message).toContain('not an absolute path');
  });

  it('refuses a folder outside the roots, also one that only escapes through ..', () => {
    for (const cwd of ['/etc', '/home/developer', '/home/dev/../root']) {
      const error = refusalOf(() => checkFolder(cwd, ROOTS));
      expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
      expect(error.message).toContain('outside the folders sessions on this relay may use (/home/dev, /tmp)');
    }
  });

  it("refuses the relay's own state folder (.relay) and anything below it, inside a root too", () => {
    for (const cwd of ['/home/dev/relay/.relay', '/home/dev/relay/.relay/pg', '/tmp/.relay']) {
      const error = refusalOf(() => checkFolder(cwd, ROOTS));
      expect(error.code).toBe('REMOTE_RELAY_INVALID_INPUT');
      expect(error.message).toBe(`cwd '${cwd}' is inside the relay's own state folder (.relay), which holds its credentials; sessions never work there.`);
    }
    expect(checkFolder('/home/dev/.relayed', ROOTS)).toBe('/home/dev/.relayed');
  });

  it('treats / as a root that allows everything', () => {
    expect(isInsideAny('/etc', ['/'])).toBe(true);
  });
});
