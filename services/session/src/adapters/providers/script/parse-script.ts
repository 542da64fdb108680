/**
 * The `script` provider's prompt language, parsed (pure). A prompt is lines; blank lines and lines
 * starting with `#` or `[` (headers such as relay event rows) are ignored; every other line is one
 * step: reply, relay_tool, wait, ask_user, fail or task.
 */

export type ScriptStep =
  | { kind: 'reply'; line: number; text: string }
  | { kind: 'relay_tool'; line: number; json: string }
  | { kind: 'wait'; line: number; seconds: string }
  | { kind: 'ask_user'; line: number; question: string; options: string[] }
  | { kind: 'fail'; line: number; message: string }
  | { kind: 'task'; line: number; command: string };

export type StepKind = ScriptStep['kind'];

/** A parsed prompt: its steps in order, and what is wrong with it (nothing runs when anything is). */
export interface Script {
  steps: ScriptStep[];
  problems: string[];
}

export const STEP_KINDS: readonly StepKind[] = ['reply', 'relay_tool', 'wait', 'ask_user', 'fail', 'task'];

const STEP = /^(?<keyword>[a-z_]+)(?:\s+(?<rest>.*))?$/s;
/** A placeholder makes a value known only when the step runs, so it is checked then. */
const HAS_PLACEHOLDER = /\{\{.*\}\}/;
const SECONDS = /^\d+(?:\.\d+)?$/;
const DEFAULT_FAIL_MESSAGE = 'the script failed';

/** Parses a prompt into steps; a line that is not a step, or a step with a bad argument, is a problem. */
export function parseScript(prompt: string): Script {
  const steps: ScriptStep[] = [];
  const problems: string[] = [];
  prompt.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const text = raw.trim();
    if (text === '' || text.startsWith('#') || text.startsWith('[')) return;
    const match = STEP.exec(text);
    const keyword = match?.groups?.keyword ?? '';
    const rest = match?.groups?.rest?.trim() ?? '';
    if (!isStepKind(keyword)) {
      problems.push(`line ${line} is not a step (${STEP_KINDS.join(', ')}): ${clip(text)}`);
      return;
    }
    const parsed = parseStep(keyword, rest, line);
    if (typeof parsed === 'string') problems.push(`line ${line}: ${parsed}`);
    else steps.push(parsed);
  });
  return { steps, problems };
}

function parseStep(kind: StepKind, rest: string, line: number): ScriptStep | string {
  switch (kind) {
    case 'reply':
      return { kind, line, text: rest };
    case 'relay_tool': {
      if (rest === '') return 'relay_tool needs a JSON object, e.g. relay_tool {"action":"list_sessions"}';
      const problem = HAS_PLACEHOLDER.test(rest) ? undefined : jsonObjectProblem(rest);
      return problem ?? { kind, line, json: rest };
    }
    case 'wait':
      if (!HAS_PLACEHOLDER.test(rest) && !SECONDS.test(rest)) return `wait needs a number of seconds, not "${clip(rest)}"`;
      return { kind, line, seconds: rest };
    case 'ask_user': {
      const [question = '', ...options] = rest.split('|').map((part) => part.trim());
      if (question === '') return 'ask_user needs a question, e.g. ask_user Ship it? | Yes | No';
      return { kind, line, question, options: options.filter((option) => option !== '') };
    }
    case 'fail':
      return { kind, line, message: rest === '' ? DEFAULT_FAIL_MESSAGE : rest };
    case 'task':
      if (rest === '') return 'task needs a shell command';
      return { kind, line, command: rest };
  }
}

/** Why `text` is not a JSON object, or undefined when it is one. */
export function jsonObjectProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `relay_tool needs a JSON object, and this is not JSON: ${clip(text)}`;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : `relay_tool needs a JSON object, not ${clip(text)}`;
}

/** Seconds of a wait step once its placeholders are filled in; undefined when not a number. */
export function parseSeconds(text: string): number | undefined {
  return SECONDS.test(text.trim()) ? Number(text.trim()) : undefined;
}

function isStepKind(keyword: string): keyword is StepKind {
  return (STEP_KINDS as readonly string[]).includes(keyword);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
