/**
 * The approval cards a provider raises before it acts (a command, a tool's write): a short title naming who wants
 * to act, then where and exactly what as lines (a long value is cut into lines, never into the title), so the
 * person sees what they allow. Only the session's owner decides one (docs/security.md, The person's Allow).
 */

/** The question service's bounds on a card (its CardLimits): a title's characters, a line's, the lines. */
const TITLE_CHARS = 300;
const LINE_CHARS = 1_000;
const LINES = 50;

export interface ApprovalCardText {
  title: string;
  lines: string[];
}

/**
 * The card's text: `title` (cut to one line's bound), then each of `fields` ("name: value") cut into lines;
 * undefined when the fields do not fit on a card whole, for nobody may allow what the card cannot show.
 */
export function approvalCardText(title: string, fields: readonly string[]): ApprovalCardText | undefined {
  const lines: string[] = [];
  for (const field of fields) for (let at = 0; at === 0 || at < field.length; at += LINE_CHARS) lines.push(field.slice(at, at + LINE_CHARS));
  if (lines.length > LINES) return undefined;
  return { title: title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title, lines };
}

/**
 * The card for `command` in `cwd` asked by `agent` (a model id or a provider's name), or undefined when too long;
 * `runsIn` says where it would run (the relay's sandbox: BackgroundTaskStarter.where), its last line.
 */
export function commandCard(input: { agent: string; cwd: string; command: string; runsIn?: string | undefined }): ApprovalCardText | undefined {
  return approvalCardText(`${input.agent} wants to run a command`, [
    `Folder: ${input.cwd}`,
    `Command: ${input.command}`,
    ...(input.runsIn === undefined ? [] : [`Runs in: ${input.runsIn}`]),
  ]);
}
