/** Texts shown on one line: the quoted starts in summaries and on cards, an error in a summary. */

/** The start of `text` on one line, quoted. */
export function quoteStart(text: string, max = 80): string {
  return `"${oneLine(text, max)}"`;
}

/** `text` with its whitespace folded to single spaces, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
