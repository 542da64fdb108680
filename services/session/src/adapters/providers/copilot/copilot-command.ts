/**
 * Copilot's one tool for commands (run_command): the CLI's own shell never runs here (its session offers no built-in
 * tool), so a command it asks for is the owner's approval card, then runs in the relay's sandbox in the session's
 * folder and the model reads its output back.
 */
import type { CliSandbox } from '../../../app/tasks/cli-sandbox.ts';

/** The tool's name, and its JSON schema as the model reads it. */
export const RUN_COMMAND_TOOL = 'run_command';

export const RUN_COMMAND_PARAMETERS = {
  type: 'object',
  properties: { command: { type: 'string', description: 'The shell command (sh -c), run in the session folder.' } },
  required: ['command'],
  additionalProperties: false,
};

export const RUN_COMMAND_DESCRIPTION =
  "Runs a shell command (sh -c) in the session's folder, inside the relay's sandbox, once the user allows it on a card; returns its exit code and output.";

/** What a command's output is cut to before the model reads it. */
const OUTPUT_CHARS = 20_000;

/** The command a run_command call names, or undefined. */
export function commandArgument(args: unknown): string | undefined {
  const command = (args as { command?: unknown } | undefined)?.command;
  return typeof command === 'string' && command.trim() !== '' ? command : undefined;
}

/**
 * Runs `command` with `sh -c` in the sandbox, for the session in its folder (its user's, on the command runner),
 * with exactly `env`; killed when `signal` aborts. Its exit code and output (stdout and stderr as they came, cut to
 * OUTPUT_CHARS) as the model reads them.
 */
export async function runInSandbox(
  sandbox: CliSandbox,
  where: { sessionId: string; folder: string; env: Readonly<Record<string, string>> },
  command: string,
  signal: AbortSignal,
): Promise<string> {
  if (sandbox.unavailable !== undefined) return `The command did not run: ${sandbox.unavailable}.`;
  if (signal.aborted) return 'The command did not run: the turn was stopped.';
  const child = sandbox.spawn({ ...where, argv: ['sh', '-c', command] });
  const kill = () => child.kill();
  signal.addEventListener('abort', kill, { once: true });
  child.stdin.end();
  let output = '';
  const take = (chunk: Buffer) => {
    if (output.length < OUTPUT_CHARS) output += chunk.toString('utf8');
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  try {
    return await new Promise<string>((resolve) => {
      child.once('error', (error: Error) => resolve(`The command did not run: ${error.message}`));
      child.once('close', (code: number | null, killedBy: string | null) =>
        resolve(`${killedBy === null ? `exit ${code}` : `killed (${killedBy})`}\n${output.slice(0, OUTPUT_CHARS)}`),
      );
    });
  } finally {
    signal.removeEventListener('abort', kill);
  }
}
