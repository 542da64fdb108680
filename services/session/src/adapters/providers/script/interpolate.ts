/**
 * Placeholders in script steps (pure): {{result}} is the last relay_tool result as JSON,
 * {{result.a.b}} one field of it (strings unquoted; array items by index), {{answer}} the last
 * answer. Anything else in braces is left as written.
 */

/** What a step may refer to. `result` is absent until a relay_tool step has run. */
export interface ScriptVariables {
  result?: unknown;
  answer: string;
}

const PLACEHOLDER = /\{\{\s*(answer|result(?:\.[^\s{}.]+)*)\s*\}\}/y;

/**
 * Fills in the placeholders of `template`. With `json`, the template is a JSON text: a placeholder
 * inside a string literal is escaped for it, one outside is inserted as it is (so {{result}} can
 * stand for a whole object).
 */
export function interpolate(template: string, variables: ScriptVariables, options: { json?: boolean } = {}): string {
  let out = '';
  let inString = false;
  let i = 0;
  while (i < template.length) {
    PLACEHOLDER.lastIndex = i;
    const match = template.startsWith('{{', i) ? PLACEHOLDER.exec(template) : null;
    if (match) {
      const value = valueOf(match[1] ?? '', variables);
      out += options.json && inString ? JSON.stringify(value).slice(1, -1) : value;
      i += match[0].length;
      continue;
    }
    const char = template[i] ?? '';
    if (options.json) {
      if (char === '\\' && inString) {
        out += template.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (char === '"') inString = !inString;
    }
    out += char;
    i += 1;
  }
  return out;
}

/** A value as a step shows it: strings as they are, anything else as JSON, nothing as "". */
export function showValue(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function valueOf(name: string, variables: ScriptVariables): string {
  if (name === 'answer') return variables.answer;
  if (name === 'result') return variables.result === undefined ? '' : JSON.stringify(variables.result);
  const path = name.split('.').slice(1);
  return showValue(path.reduce<unknown>((value, key) => field(value, key), variables.result));
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
