/**
 * The headers of a call from one relay to another (HTTPS, /relay/v1): the pairing service's RelayClient sends them,
 * the gateway's relay routes read them.
 */

/** A forwarded prompt's provenance (decisions.md, Across relays). */
export const PROVENANCE_HEADERS = {
  originRelay: 'x-relay-origin',
  originSessionId: 'x-relay-session-id',
  originSessionTitle: 'x-relay-session-title',
  model: 'x-relay-model',
  hops: 'x-relay-hops',
  /** The relays the prompt came through, oldest first: percent-encoded names joined by commas. */
  viaRelays: 'x-relay-via',
} as const;

/** The header a relay answers its version in. */
export const VERSION_HEADER = 'x-relay-version';

/** Set ("1") on a forwarded call that the other relay only checks (before a card is shown on the calling relay). */
export const DRY_RUN_HEADER = 'x-relay-dry-run';
