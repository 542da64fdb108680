/**
 * The names /mcp answers under, against DNS rebinding: a web page on a name its attacker points at this
 * gateway's address would otherwise reach /mcp from the victim's browser. A request must name an allowed host
 * in Host, and a browser's Origin, when it sends one, must be of an allowed host too.
 */

/** One allowed name; without a port, it is allowed on every port. */
interface HostEntry {
  hostname: string;
  port?: string;
}

/** Loopback is always allowed: a page cannot make a browser name loopback for an address that is not its own. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** Addresses that mean "every interface", which no request names. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

export class AllowedHosts {
  readonly #entries: HostEntry[];

  /**
   * `publicUrl`: the URL users and clients reach the gateway at (its host is allowed on any port); `listenHost`:
   * the address it listens on (allowed unless it is every interface); `configured`: host or host:port entries
   * (RELAY_ALLOWED_HOSTS).
   */
  constructor(input: { publicUrl: string; listenHost?: string; configured?: readonly string[] }) {
    const names = [...LOOPBACK, new URL(input.publicUrl).hostname, ...(input.configured ?? [])];
    if (input.listenHost !== undefined && !WILDCARDS.has(input.listenHost)) names.push(bracketed(input.listenHost));
    this.#entries = names.map(entryOf).filter((entry): entry is HostEntry => entry !== undefined);
  }

  /** True when a Host header names an allowed host. */
  allowsHost(host: string | undefined): boolean {
    const entry = host === undefined ? undefined : entryOf(host);
    return entry !== undefined && this.#allows(entry);
  }

  /** True when an Origin header is absent (no browser sent it) or is of an allowed host. */
  allowsOrigin(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      // "null" (a sandboxed page, a file) and anything unreadable: no allowed origin.
      return false;
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && this.#allows({ hostname: url.hostname.toLowerCase(), port: url.port || undefined });
  }

  #allows(wanted: HostEntry): boolean {
    return this.#entries.some((entry) => entry.hostname === wanted.hostname && (entry.port === undefined || entry.port === wanted.port));
  }
}

/** "Host" or "host:port" (IPv6 in brackets) as an entry; undefined for anything else. */
function entryOf(value: string): HostEntry | undefined {
  const match = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  return { hostname: match[1]!, ...(match[2] === undefined ? {} : { port: match[2] }) };
}

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}
