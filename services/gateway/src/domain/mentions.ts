/**
 * Which paired relays a user's message mentions (spec, Locked and unlocked): its name or its host, as a
 * whole word, in any case, with or without a leading @. A name or host that is an IP address or
 * localhost counts only with the leading @, since such words turn up in ordinary messages.
 */
import { isIP } from 'node:net';

/** A paired relay as mentions see it. */
export interface MentionTarget {
  name: string;
  url: string;
}

/** The names of the relays `text` mentions, in the order given. */
export function mentionedRelays(text: string, relays: readonly MentionTarget[]): string[] {
  return relays.filter((relay) => wordsFor(relay).some((word) => mentions(text, word))).map((relay) => relay.name);
}

interface Word {
  text: string;
  /** Counts only after an @. */
  needsAt: boolean;
}

function wordsFor(relay: MentionTarget): Word[] {
  const words = [relay.name, hostOf(relay.url)].filter((word): word is string => word !== undefined && word !== '');
  return [...new Set(words.map((word) => word.toLowerCase()))].map((word) => ({ text: word, needsAt: isIP(word) !== 0 || word === 'localhost' }));
}

function mentions(text: string, word: Word): boolean {
  const escaped = word.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A word boundary that also treats ".", "-" and "_" as part of a name: "desk" is not in "desk-2" or "my.desk".
  const before = word.needsAt ? '@' : '(?<![\\w.-])@?';
  const pattern = new RegExp(`${before}${escaped}(?![\\w-]|\\.\\w)`, 'i');
  return pattern.test(text);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}
