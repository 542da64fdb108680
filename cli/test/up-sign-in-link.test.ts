// The console's one-time sign-in link signs in as the relay's admin: `relay up` makes and prints it on a terminal
// only, never into a redirected log or --json output unless asked with --sign-in-link.
import { describe, expect, it } from 'vitest';
import { showsSignInLink } from '../src/commands/up.ts';

describe("relay up's sign-in link", () => {
  it.each([
    ['on a terminal', { json: false }, true, true],
    ['redirected to a file or a pipe', { json: false }, false, false],
    ['with --json, even on a terminal', { json: true }, true, false],
    ['redirected, with --sign-in-link', { json: false, signInLink: true }, false, true],
    ['with --json and --sign-in-link', { json: true, signInLink: true }, false, true],
  ])('%s', (_label, options, terminal, shown) => {
    expect(showsSignInLink(options, terminal)).toBe(shown);
  });
});
