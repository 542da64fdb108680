import { formatLogLine, localClockTime } from './format-log-line.ts';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LevelName = keyof typeof LEVELS;
const LEVEL_NAMES: Record<number, LevelName> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A line shaped like the services' own pino lines (label level, ISO time, `service`). */
function jsonLine(level: LevelName, service: string, message: string): string {
  return `${JSON.stringify({ level, time: new Date().toISOString(), service, msg: message })}\n`;
}

/**
 * The CLI's terminal output: its own status lines and the children's log lines, readable or, with
 * `--json`, as JSON lines (children's lines untouched) so the whole stream can go to jq or pino-pretty.
 */
export class Reporter {
  private readonly threshold: number;
  /** The lowest level of a child's line shown on a terminal. */
  private readonly childThreshold: number;
  private readonly colorIndexes = new Map<string, number>();

  constructor(private readonly options: { json: boolean; color: boolean; level: string; out: NodeJS.WritableStream; err: NodeJS.WritableStream }) {
    this.threshold = LEVELS[options.level as LevelName] ?? LEVELS.info;
    this.childThreshold = this.threshold <= LEVELS.debug ? this.threshold : Math.max(this.threshold, LEVELS.warn);
  }

  debug(message: string): void {
    this.own(20, message);
  }

  info(message: string): void {
    this.own(30, message);
  }

  warn(message: string): void {
    this.own(40, message);
  }

  error(message: string): void {
    this.own(50, message);
  }

  /** Text meant for the reader, printed as is even in JSON mode, on stdout. */
  print(text: string): void {
    this.options.out.write(`${text}\n`);
  }

  /** The "relay is up" moment: `text` for a reader; in JSON mode one line carrying `fields` instead. */
  ready(text: string, fields: Record<string, string>): void {
    if (!this.options.json) return this.print(text);
    this.options.out.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), service: 'relay-up', msg: 'relay is up', ...fields })}\n`);
  }

  /**
   * One output line of a child process; `level` is used for lines that are not already JSON. On a terminal
   * only the services' warnings and errors show (not a line per request), unless LOG_LEVEL is debug or trace;
   * with --json every line the services wrote passes through.
   */
  child(name: string, line: string, level: LevelName = 'info'): void {
    const isJson = line.startsWith('{');
    if (!isJson && LEVELS[level] < this.threshold) return;
    if (!this.options.json && lineLevel(line, level) < this.childThreshold) return;
    if (this.options.json) {
      this.options.out.write(isJson ? `${line}\n` : jsonLine(level, name, line));
      return;
    }
    if (!this.colorIndexes.has(name)) this.colorIndexes.set(name, this.colorIndexes.size + 1);
    const formatted = formatLogLine(name, line, { color: this.options.color, colorIndex: this.colorIndexes.get(name) ?? 0, formatTime: localClockTime });
    this.options.out.write(`${formatted}\n`);
  }

  private own(level: number, message: string): void {
    if (level < this.threshold) return;
    if (this.options.json) {
      this.options.out.write(jsonLine(LEVEL_NAMES[level] ?? 'info', 'relay-up', message));
      return;
    }
    const stream = level >= 40 ? this.options.err : this.options.out;
    const prefix = level >= 50 ? 'error: ' : level >= 40 ? 'warning: ' : '';
    stream.write(`${prefix}${message}\n`);
  }
}

/** The pino level of a child's JSON line (a number or a label), else `fallback`'s. */
function lineLevel(line: string, fallback: LevelName): number {
  if (!line.startsWith('{')) return LEVELS[fallback];
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    if (typeof level === 'number') return level;
    if (typeof level === 'string' && level in LEVELS) return LEVELS[level as LevelName];
  } catch {
    // Not JSON after all: shown as a line of its own.
  }
  return LEVELS[fallback];
}
