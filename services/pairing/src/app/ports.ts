import type { AgentLevel, PairedRelay } from '../domain/paired-relay.ts';

/** The paired relays this service owns. */
export interface PairedRelayStore {
  /** Every paired relay, ordered by name. */
  list(): Promise<PairedRelay[]>;
  /** The pairing of this name, case aside. */
  find(name: string): Promise<PairedRelay | undefined>;
  /** The pairing with this (normalised) URL. */
  findByUrl(url: string): Promise<PairedRelay | undefined>;
  /** The paired relay whose inbound token has this hash. */
  findByInboundHash(hash: string): Promise<PairedRelay | undefined>;
  /**
   * Keeps a new pairing unless its name (case aside) or URL is paired already: then nothing changes and the
   * pairing it collided with is returned. Atomic, so two pairings racing for one name cannot both land.
   */
  add(relay: PairedRelay): Promise<PairedRelay | undefined>;
  /** Removes a pairing and, in the same transaction, publishes relay.pairing.v1.unpaired. */
  remove(name: string, event: UnpairedEvent): Promise<PairedRelay | undefined>;
  setLevel(name: string, level: AgentLevel): Promise<PairedRelay | undefined>;
  /** What the last contact with a relay showed. */
  noteContact(name: string, contact: { online: boolean; version?: string; at: Date }): Promise<void>;
}

/** The announcement that a pairing ended here. */
export interface UnpairedEvent {
  eventId: string;
  occurredAt: Date;
  relay: string;
}

/** One-time pairing codes, kept as hashes. */
export interface PairingCodeStore {
  add(code: { codeHash: string; userId: string; expiresAt: Date }): Promise<void>;
  /** Spends a code, atomically and at most once: the user who made it, or undefined when it is unknown, used or expired. */
  spend(codeHash: string, now: Date): Promise<string | undefined>;
  /** Deletes the codes a user made that nobody spent (the user was removed); how many. */
  dropUnspentOf(userId: string): Promise<number>;
}

/** This relay's pairing settings. */
export interface PairingSettingsStore {
  get(): Promise<{ acceptPrompts: boolean }>;
  set(change: { acceptPrompts?: boolean }): Promise<{ acceptPrompts: boolean }>;
}

/** Random secrets and their hashes. */
export interface Secrets {
  /** A token of at least 256 random bits. */
  newToken(): string;
  /** A pairing code a person can type. */
  newCode(): string;
  newId(): string;
  hash(secret: string): string;
  /** Compares two hashes in constant time. */
  sameHash(a: string, b: string): boolean;
}

/** Where a forwarded prompt came from (decisions.md, Across relays). */
export interface Provenance {
  originRelay: string;
  originSessionId: string;
  originSessionTitle: string;
  model: string;
  hops: number;
  /** The relays the prompt came through, oldest first (the calling gateway appended its own name). */
  viaRelays: string[];
}

/** What a relay answers when another pairs with it. */
export interface PairAnswer {
  name: string;
  version: string;
  token: string;
}

/** Calls to another relay's /relay/v1 (REMOTE_RELAY_OFFLINE when it does not answer, REMOTE_RELAY_AUTH when it refuses). */
export interface RelayLink {
  /** POST /relay/v1/pair with a code. */
  pair(url: string, offer: { code: string; name: string; url: string; version: string; token: string }): Promise<PairAnswer>;
  /** GET /relay/v1/hello: the relay answers its name and version to this relay's token. */
  hello(relay: { url: string; token: string }): Promise<{ name: string; version: string }>;
  /** POST /relay/v1/tool: one relay_tool call; the result as the other relay answered it. */
  callTool(
    relay: { url: string; token: string },
    call: { action: string; argumentsJson: string; provenance: Provenance; timeoutMs: number; dryRun: boolean },
  ): Promise<{ resultJson: string; version: string }>;
}
