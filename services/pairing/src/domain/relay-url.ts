/**
 * Remote addresses (spec, Across relays): https:// everywhere; plain http:// only for loopback and
 * private network ranges.
 */
import { isIP } from 'node:net';
import { invalidInput } from './errors.ts';

/** The relay's base URL, normalised (no trailing slash); REMOTE_RELAY_INVALID_INPUT for anything else. */
export function checkRelayUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidInput(`"${raw}" is not a URL; give the other relay's address, for example https://build-box.example.com.`);
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw invalidInput('A relay address takes no user, password, query or fragment.');
  }
  if (url.protocol === 'http:' && !isLocalHost(url.hostname)) {
    throw invalidInput(`Remote addresses must use https://; plain http:// is accepted only for loopback and private network ranges, not for ${url.hostname}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidInput(`A relay address must start with https:// (or http:// on loopback and private networks), not ${url.protocol}//.`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The names this machine's loopback goes by: localhost, 127.0.0.1 and ::1 reach the same relay. */
const LOOPBACK_SPELLINGS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Every spelling of a relay's address (as checkRelayUrl gives it) that reaches the same relay, itself first: one
 * relay on this machine answers at http://localhost:7999, http://127.0.0.1:7999 and http://[::1]:7999 alike, so a
 * pairing at one of them is a pairing at all. Scheme, host case, a default port and a trailing slash are already
 * normalised by checkRelayUrl.
 */
export function sameRelayUrls(url: string): string[] {
  const parsed = new URL(url);
  const host = parsed.hostname.toLowerCase();
  if (!LOOPBACK_SPELLINGS.includes(host) && host !== '::1') return [url];
  const port = parsed.port === '' ? '' : `:${parsed.port}`;
  const path = parsed.pathname.replace(/\/+$/, '');
  const others = LOOPBACK_SPELLINGS.map((spelling) => `${parsed.protocol}//${spelling}${port}${path}`).filter((other) => other !== url);
  return [url, ...others];
}

/** Loopback (127/8, ::1, localhost) or a private range (10/8, 172.16/12, 192.168/16, fc00::/7, link-local). */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (family === 6) {
    if (host === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped) return isLocalHost(mapped[1]!);
    return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
  }
  return false;
}
