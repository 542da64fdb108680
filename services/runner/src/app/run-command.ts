/**
 * The runner's one use case: a command checked (domain/command-rules.ts) and started in its folder, with exactly the
 * environment it was given, in a process group of its own that ends when the caller lets go.
 */
import { appError } from '@relay/errors';
import { commandRefusal } from '../domain/command-rules.ts';

/** One piece of what a running command says: its output, then its end (the last). */
export type CommandEvent = { stdout: Uint8Array } | { stderr: Uint8Array } | { exited: { exitCode: number | null; signal: string | null } };

/** A command started in a process group of its own. */
export interface GroupProcess {
  /** Its process group's leader. */
  readonly pid: number;
  /** Its output as it comes, then its end; the end comes once every process of its group has closed its output. */
  events(): AsyncIterable<CommandEvent>;
  /** Ends its whole process group (SIGTERM, then SIGKILL after a grace); nothing once it ended. */
  stop(): void;
}

/** How the runner reaches its machine. */
export interface RunnerPorts {
  /** The folder's real path when it is a folder, else undefined. */
  realFolder(path: string): Promise<string | undefined>;
  /** Starts argv in folder with exactly env; rejects when it cannot start. */
  start(input: { argv: readonly string[]; folder: string; env: Readonly<Record<string, string>> }): Promise<GroupProcess>;
}

/**
 * Starts the command once its folder is known to lie under the workspace (by real path); REMOTE_RELAY_INVALID_INPUT
 * when it does not, when it is no folder or when argv is empty.
 */
export async function runCommand(
  request: { folder: string; argv: readonly string[]; env: Readonly<Record<string, string>> },
  context: { realWorkspace: string; ports: RunnerPorts },
): Promise<GroupProcess> {
  const realFolder = request.folder.startsWith('/') ? await context.ports.realFolder(request.folder) : undefined;
  const refusal = commandRefusal({ ...request, realFolder, realWorkspace: context.realWorkspace });
  if (refusal !== undefined) throw appError('REMOTE_RELAY_INVALID_INPUT', refusal, { details: { field: refusal.startsWith('no command') ? 'argv' : 'folder' } });
  // The real path: a link swapped in after the check cannot move the command elsewhere.
  return context.ports.start({ argv: request.argv, folder: realFolder!, env: request.env });
}
