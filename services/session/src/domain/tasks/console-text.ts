/**
 * Output as the task console shows it (pure): colours and cursor codes removed, a carriage-return
 * progress line reduced to what it last showed, and a run of identical lines shown once as `[×N]`.
 */
import { redactCredentials } from './redact-credentials.ts';
import { parseTestCounts, type TestCounts } from './test-counts.ts';

/* eslint-disable no-control-regex -- a console's escape sequences and control characters are what this file strips */
// CSI sequences (colours, cursor moves), OSC sequences (titles, links) and lone two-byte escapes.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// Other control characters a console does not print (tab, newline and carriage return stay).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g;

/** `text` without ANSI escape sequences or unprintable control characters. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '').replace(CONTROL, '');
}

/** The lines of plain `text`; a line rewritten with carriage returns is what it showed last. */
export function consoleLines(text: string): string[] {
  const lines = text.split('\n').map((line) => {
    const parts = line.replace(/\r$/, '').split('\r');
    return parts[parts.length - 1] ?? '';
  });
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `lines` with each run of identical consecutive lines as one line ending in `[×N]`. */
export function collapseRepeats(lines: readonly string[]): string[] {
  const collapsed: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    let run = 1;
    while (index + run < lines.length && lines[index + run] === line) run++;
    collapsed.push(run > 1 ? `${line} [×${run}]` : line);
    index += run;
  }
  return collapsed;
}

/** The last `count` of `lines`, and whether any came before them. */
export function tailOf(lines: readonly string[], count: number): { tail: string[]; truncated: boolean } {
  const start = Math.max(0, lines.length - count);
  return { tail: lines.slice(start), truncated: start > 0 };
}

/** The console's reading of the end of an output: plain lines, collapsed and blanked, and the counts. */
export function readConsole(text: string): { lines: string[]; counts: TestCounts | undefined } {
  const plain = stripAnsi(text);
  return { lines: collapseRepeats(consoleLines(redactCredentials(plain))), counts: parseTestCounts(plain) };
}
