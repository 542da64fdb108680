/**
 * The runner's one use case: a command checked (domain/command-rules.ts) and started in its folder as its relay
 * user's own sandbox user, with the environment it was given (its HOME and TMPDIR that user's private folder), in a
 * process group of its own that ends when the caller lets go. A folder no sandbox user owns becomes the user's on
 * their first command there; one another sandbox user owns, or that lies inside one, is refused.
 */
import { appError } from '@relay/errors';
import { commandRefusal, folderClaim } from '../domain/command-rules.ts';

/** One piece of what a running command says: its output, then its end (the last). */
export type CommandEvent = { stdout: Uint8Array } | { stderr: Uint8Array } | { exited: { exitCode: number | null; signal: string | null } };

/** A command started in a process group of its own. */
export interface GroupProcess {
  /** Its process group's leader. */
  readonly pid: number;
  /** Its output as it comes, then its end; the end comes once every process of its group has closed its output. */
  events(): AsyncIterable<CommandEvent>;
  /** Gives it more of its stdin (a command started with stdin only; nothing once it ended). */
  write(chunk: Uint8Array): void;
  /** Ends its stdin: it reads end of file. */
  closeStdin(): void;
  /** Ends its whole process group (SIGTERM, then SIGKILL after a grace); nothing once it ended. */
  stop(): void;
}

/** A folder as the runner finds it: its real path and the owners of it and of the folders between it and the workspace. */
export interface FoundFolder {
  path: string;
  owner: number;
  /** The owners of the folders above it, up to (not including) the workspace. */
  ancestorOwners: number[];
}

/** How the runner reaches its machine. */
export interface RunnerPorts {
  /** The folder by its real path when it is a folder, else undefined. */
  findFolder(path: string, realWorkspace: string): Promise<FoundFolder | undefined>;
  /** Gives the folder to `uid` (owner `uid`, the session service's group, 2770), not following a link; its owner after. */
  takeFolder(path: string, uid: number): Promise<number>;
  /** `uid`'s private home and temporary folder (0700, theirs), made on first use. */
  home(uid: number): Promise<string>;
  /** Starts argv in folder as uid with exactly env; with `stdin` its stdin is written by the caller. Rejects when it cannot start. */
  start(input: { argv: readonly string[]; folder: string; env: Readonly<Record<string, string>>; uid: number; stdin: boolean }): Promise<GroupProcess>;
}

/** A command to run: RunCommand's request, Exec's first message. */
export interface CommandRequest {
  folder: string;
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  uid: number;
}

/**
 * Starts the command once its folder is known to lie under the workspace (by real path) and to be its user's;
 * REMOTE_RELAY_INVALID_INPUT when it is not under it, no folder, the workspace itself, when argv is empty or the uid
 * no sandbox user's; REMOTE_RELAY_FORBIDDEN when the folder (or one above it) belongs to another user's commands.
 */
export async function runCommand(request: CommandRequest, context: { realWorkspace: string; ports: RunnerPorts; stdin?: boolean }): Promise<GroupProcess> {
  const { ports, realWorkspace } = context;
  const found = request.folder.startsWith('/') ? await ports.findFolder(request.folder, realWorkspace) : undefined;
  const refusal = commandRefusal({ ...request, realFolder: found?.path, realWorkspace });
  if (refusal !== undefined) {
    throw appError('REMOTE_RELAY_INVALID_INPUT', refusal, {
      details: { field: refusal.startsWith('no command') ? 'argv' : refusal.startsWith('uid') ? 'uid' : 'folder' },
    });
  }
  const folder = found!;
  for (const owner of [...folder.ancestorOwners, folder.owner]) {
    const claim = folderClaim({ folder: request.folder, owner, uid: request.uid });
    if (typeof claim === 'object') throw appError('REMOTE_RELAY_FORBIDDEN', claim.refusal, { details: { field: 'folder' } });
  }
  // Taken by another user's command at the same moment: the last owner wins, and only its command runs.
  if (folder.owner !== request.uid && (await ports.takeFolder(folder.path, request.uid)) !== request.uid) {
    throw appError('REMOTE_RELAY_FORBIDDEN', `folder '${request.folder}' belongs to another user's commands`, { details: { field: 'folder' } });
  }
  const home = await ports.home(request.uid);
  // The real path: a link swapped in after the check cannot move the command elsewhere.
  return ports.start({
    argv: request.argv,
    folder: folder.path,
    env: { ...request.env, HOME: home, TMPDIR: home },
    uid: request.uid,
    stdin: context.stdin ?? false,
  });
}
