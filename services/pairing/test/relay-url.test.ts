import { describe, expect, it } from 'vitest';
import { isAppError } from '@relay/errors';
import { checkRelayUrl, sameRelayUrls } from '../src/domain/relay-url.ts';

function codeOf(url: string): string {
  try {
    checkRelayUrl(url);
    return 'ok';
  } catch (error) {
    if (!isAppError(error)) throw error;
    return error.code;
  }
}

describe('checkRelayUrl (spec, Across relays: https://, plain http:// only for loopback and private ranges)', () => {
  it.each([
    'https://build-box.example.com',
    'https://203.0.113.9:8443',
    'http://127.0.0.1:7420',
    'http://localhost:7420',
    'http://[::1]:7420',
    'http://10.1.2.3',
    'http://172.16.0.1',
    'http://172.31.255.255',
    'http://192.168.1.20:7420',
    'http://[fd12::1]',
  ])('accepts %s', (url) => {
    expect(codeOf(url)).toBe('ok');
  });

  it.each([
    'http://build-box.example.com',
    'http://203.0.113.9',
    'http://172.32.0.1',
    'http://11.0.0.1',
    'ftp://10.0.0.1',
    'not a url',
    'https://user:secret@build-box.example.com',
  ])('refuses %s with REMOTE_RELAY_INVALID_INPUT', (url) => {
    expect(codeOf(url)).toBe('REMOTE_RELAY_INVALID_INPUT');
  });

  it('keeps the path and drops a trailing slash', () => {
    expect(checkRelayUrl('https://relay.example.com/team/')).toBe('https://relay.example.com/team');
  });
});

describe("sameRelayUrls: the spellings of one relay's address", () => {
  it('loopback by name or address is one relay, on the same scheme, port and path', () => {
    expect(sameRelayUrls(checkRelayUrl('http://LOCALHOST:7999/'))).toEqual(['http://localhost:7999', 'http://127.0.0.1:7999', 'http://[::1]:7999']);
    expect(sameRelayUrls(checkRelayUrl('https://[::1]:8443/relay'))).toEqual([
      'https://[::1]:8443/relay',
      'https://localhost:8443/relay',
      'https://127.0.0.1:8443/relay',
    ]);
  });

  it('any other host is only itself', () => {
    expect(sameRelayUrls(checkRelayUrl('https://build-box.example.com'))).toEqual(['https://build-box.example.com']);
    expect(sameRelayUrls(checkRelayUrl('http://127.0.0.2:7999'))).toEqual(['http://127.0.0.2:7999']);
  });
});
