const PINO_LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_NUMBERS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
/** Shown elsewhere on the line (time, name, level, message) or too noisy for a terminal; `--json` keeps them. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'name', 'service', 'pid', 'hostname', 'trace_id', 'span_id', 'trace_flags', 'err']);
const NAME_WIDTH = 'subscription'.length;
const NAME_COLORS = [36, 35, 34, 32, 33, 96, 95, 94];

const paint = (color: boolean, code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);

export type LogLineOptions = {
  color: boolean;
  /** Picks the name's colour, so each process keeps one. */
  colorIndex?: number;
  /** Renders pino's `time` (epoch ms, or an ISO string turned into one); the caller decides the time zone. */
  formatTime: (epochMs: number) => string;
};

/**
 * One child's output line made readable: `12:03:04 session      INFO  message key=value`, with an error's
 * stack on the lines below. A line that is not pino JSON is shown as it came, after the name.
 */
export function formatLogLine(name: string, line: string, options: LogLineOptions): string {
  const label = paint(options.color, NAME_COLORS[(options.colorIndex ?? 0) % NAME_COLORS.length] ?? 36, name.padEnd(NAME_WIDTH));
  const record = parseRecord(line);
  if (record === undefined) return `${' '.repeat(8)} ${label} ${line}`;
  const rawLevel = record['level'];
  const levelNumber = typeof rawLevel === 'number' ? rawLevel : typeof rawLevel === 'string' ? (LEVEL_NUMBERS[rawLevel] ?? 30) : 30;
  const level = (PINO_LEVELS[levelNumber] ?? String(levelNumber)).padEnd(5);
  const levelText = levelNumber >= 50 ? paint(options.color, 31, level) : levelNumber >= 40 ? paint(options.color, 33, level) : level;
  const epochMs = typeof record['time'] === 'number' ? record['time'] : typeof record['time'] === 'string' ? Date.parse(record['time']) : Number.NaN;
  const time = Number.isNaN(epochMs) ? ' '.repeat(8) : options.formatTime(epochMs);
  const message = typeof record['msg'] === 'string' ? record['msg'] : '';
  const fields = Object.entries(record)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${renderValue(value)}`);
  const head = [time, label, levelText, message, ...fields].filter((part) => part !== '').join(' ');
  const stack = errorText(record['err']);
  return stack === undefined ? head : `${head}\n${indent(stack)}`;
}

/** Formats epoch ms as local HH:MM:SS, the default for a terminal. */
export function localClockTime(epochMs: number): string {
  const date = new Date(epochMs);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function errorText(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { stack, message } = err as { stack?: unknown; message?: unknown };
  if (typeof stack === 'string') return stack;
  return typeof message === 'string' ? message : undefined;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
