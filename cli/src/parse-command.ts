import { parseArgs } from 'node:util';
import { CliError } from './cli-error.ts';

export type SessionScope = 'active' | 'archived' | 'all';

export type Command =
  | { kind: 'up'; json: boolean }
  | { kind: 'sessions'; scope: SessionScope; json: boolean }
  | { kind: 'create-session'; title: string; json: boolean }
  | { kind: 'help' };

const SCOPES: readonly SessionScope[] = ['active', 'archived', 'all'];

export const HELP_TEXT = `relay: run a relay on this machine and talk to it

Usage:
  relay up [--json]                              start NATS, PostgreSQL and the six services; Ctrl-C stops them
  relay sessions [--scope active|archived|all] [--json]
                                                 list your sessions
  relay session create --external [--title T] [--json]
                                                 create a session for an MCP client you run, and print its token
  relay help                                     this text

relay up reads NATS_URL, DATABASE_URL (a server URL; each service gets its own database on it),
RELAY_PORT (7420), RELAY_NAME (the host name), LOG_LEVEL, RELAY_CLOCK and OTEL_*.
The other commands use RELAY_URL and RELAY_TOKEN, or else the relay started here by relay up.
`;

/** Turns the CLI's arguments (without `node` and the script) into a command; throws CliError on misuse. */
export function parseCommand(argv: readonly string[]): Command {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  const rest = argv.slice(words.length);
  const [first, second, ...extra] = words;
  if (first === undefined || first === 'help') return parseHelp(rest);
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help' };
  if (first === 'up' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' } });
    return { kind: 'up', json: values.json === true };
  }
  if (first === 'sessions' && second === undefined) {
    const { values } = parseOptions(rest, { json: { type: 'boolean' }, scope: { type: 'string' } });
    return { kind: 'sessions', scope: parseScope(values.scope), json: values.json === true };
  }
  if (first === 'session' && second === 'create' && extra.length === 0) {
    const { values } = parseOptions(rest, {
      json: { type: 'boolean' },
      external: { type: 'boolean' },
      title: { type: 'string' },
    });
    if (values.external !== true) {
      throw new CliError('relay session create: only external sessions can be created here; add --external');
    }
    const title = typeof values.title === 'string' ? values.title.trim() : 'Terminal';
    if (title === '') throw new CliError('relay session create: --title must not be empty');
    return { kind: 'create-session', title, json: values.json === true };
  }
  throw new CliError(`unknown command "${words.join(' ')}"; run "relay help"`);
}

function parseHelp(rest: readonly string[]): Command {
  if (rest.length > 0 && !rest.every((arg) => arg === '--help' || arg === '-h')) {
    throw new CliError(`unknown option "${rest[0]}"; run "relay help"`);
  }
  return { kind: 'help' };
}

type OptionSpec = Record<string, { type: 'boolean' | 'string' }>;

function parseOptions(args: readonly string[], options: OptionSpec) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new CliError(`${(error as Error).message}; run "relay help"`, 1, { cause: error });
  }
}

function parseScope(value: string | boolean | undefined): SessionScope {
  if (value === undefined) return 'active';
  const scope = SCOPES.find((candidate) => candidate === value);
  if (scope === undefined) throw new CliError(`--scope must be one of ${SCOPES.join(', ')}`);
  return scope;
}
