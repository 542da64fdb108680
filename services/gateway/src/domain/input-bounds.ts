/**
 * The bounds every string an agent or a user sends must keep, in one place: relay_tool's arguments
 * (arguments.ts), its input schema (relay-tool-definition.ts) and the HTTP bodies, queries and path
 * parameters (adapters/http/input-guard.ts) all check against these. They are checked at the gateway before any
 * RPC, so a value no service could use never reaches one, and a refusal echoes only a short preview.
 */

/** What kind of value a string is, and so its bound. */
export type Bound = 'id' | 'name' | 'path' | 'text';

/** The most characters (UTF-16 code units, as String.length counts) of each kind. */
export const MAX_LENGTH: Record<Bound, number> = {
  // Session, message, task, subscription, schedule, question and card ids: UUIDs, "sub_…", "sch_…" (a firing's
  // message id adds ":<due time>"), "ask_…", "card_…", "task_…". 64 is well above the longest.
  id: 64,
  // Titles (the session service keeps them to 200), relay, provider, model and group names, options.
  name: 200,
  // cwd, repo and branch: PATH_MAX.
  path: 4_096,
  // Prompts, questions, details and answers.
  text: 100_000,
};

/** What an id is made of: every id this relay mints, and a paired relay's, fits. */
const ID_CHARACTERS = /^[A-Za-z0-9_.:-]+$/;

// With the u flag a surrogate pair is one code point, so only a half without its other half matches.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The most items of a list argument (sessions, events, exclude, choices, options). */
export const MAX_LIST_ITEMS = 100;

/** How deep arrays and objects may nest in one value; quiet_hours, the deepest argument, is 1. */
export const MAX_DEPTH = 8;

/** How much of a bad value a refusal shows. */
const PREVIEW_CHARS = 40;

/** A bad value as a refusal may quote it: JSON-quoted, at most its first 40 characters, then "…". */
export function preview(value: string): string {
  if (value.length <= PREVIEW_CHARS) return JSON.stringify(value);
  // Cutting between the halves of a surrogate pair would make the preview itself malformed.
  const end = isHighSurrogate(value.charCodeAt(PREVIEW_CHARS - 1)) ? PREVIEW_CHARS - 1 : PREVIEW_CHARS;
  return `${JSON.stringify(value.slice(0, end))}… (${value.length} characters)`;
}

/** Why `value` breaks its bound, as the end of a sentence about the field, or undefined when it keeps it. */
export function boundFault(value: string, bound: Bound): string | undefined {
  const content = contentFault(value);
  if (content !== undefined) return content;
  const max = MAX_LENGTH[bound];
  if (value.length > max) return `is longer than ${max} characters; got ${preview(value)}`;
  if (bound === 'id' && value !== '' && !ID_CHARACTERS.test(value)) {
    return `must be an id: letters, digits, "_", "-", "." and ":" only; got ${preview(value)}`;
  }
  return undefined;
}

/** Why a string may not be taken at all, whatever its field: a NUL character or a lone surrogate. */
export function contentFault(value: string): string | undefined {
  // PostgreSQL text cannot hold NUL, and a lone surrogate is no Unicode text at all (it cannot be encoded as UTF-8).
  if (value.includes('\u0000')) return 'contains a NUL character (\\u0000), which no text may hold';
  if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate, which is not valid Unicode text';
  return undefined;
}

/**
 * The first string inside `value` (itself, the items of a list, an object's keys and values, nested) that
 * breaks its bound, with the path that names it (`field`, `field[2]`, `field.tz`), or undefined when all keep
 * theirs. `boundOf` gives the bound of the strings at a path; lists longer than MAX_LIST_ITEMS and nesting
 * deeper than MAX_DEPTH are faults too.
 */
export function findBoundFault(value: unknown, field: string, boundOf: (field: string) => Bound, depth = 0): { field: string; fault: string } | undefined {
  if (typeof value === 'string') {
    const fault = boundFault(value, boundOf(field));
    return fault === undefined ? undefined : { field, fault };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_DEPTH) return { field, fault: `nests lists or objects deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_ITEMS) return { field, fault: `has more than ${MAX_LIST_ITEMS} items (${value.length})` };
    for (const [index, item] of value.entries()) {
      const found = findBoundFault(item, `${field}[${index}]`, boundOf, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyFault = boundFault(key, 'name');
    if (keyFault !== undefined) return { field, fault: `has a key that ${keyFault}` };
    const found = findBoundFault(item, `${field}.${key}`, boundOf, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
