import { formatLogLine, localClockTime } from './format-log-line.ts';

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LevelName = keyof typeof LEVELS;

/**
 * The CLI's terminal output: its own status lines and the children's log lines, readable or, with
 * `--json`, as JSON lines (children's lines untouched) so the whole stream can go to jq or pino-pretty.
 */
export class Reporter {
  private readonly threshold: number;
  private readonly colorIndexes = new Map<string, number>();

  constructor(
    private readonly options: { json: boolean; color: boolean; level: string; out: NodeJS.WritableStream; err: NodeJS.WritableStream },
  ) {
    this.threshold = LEVELS[options.level as LevelName] ?? LEVELS.info;
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

  /** Text meant for the reader (the banner), printed as is even in JSON mode, on stdout. */
  print(text: string): void {
    this.options.out.write(`${text}\n`);
  }

  /** One output line of a child process; `level` is used for lines that are not already JSON. */
  child(name: string, line: string, level: LevelName = 'info'): void {
    const isJson = line.startsWith('{');
    if (!isJson && LEVELS[level] < this.threshold) return;
    if (this.options.json) {
      this.options.out.write(isJson ? `${line}\n` : `${JSON.stringify({ level: LEVELS[level], time: Date.now(), name: `relay-${name}`, msg: line })}\n`);
      return;
    }
    if (!this.colorIndexes.has(name)) this.colorIndexes.set(name, this.colorIndexes.size + 1);
    const formatted = formatLogLine(name, line, { color: this.options.color, colorIndex: this.colorIndexes.get(name) ?? 0, formatTime: localClockTime });
    this.options.out.write(`${formatted}\n`);
  }

  private own(level: number, message: string): void {
    if (level < this.threshold) return;
    if (this.options.json) {
      this.options.out.write(`${JSON.stringify({ level, time: Date.now(), name: 'relay-up', msg: message })}\n`);
      return;
    }
    const stream = level >= 40 ? this.options.err : this.options.out;
    const prefix = level >= 50 ? 'error: ' : level >= 40 ? 'warning: ' : '';
    stream.write(`${prefix}${message}\n`);
  }
}
