/**
 * What the runner checks before it starts a command (pure: the real paths and the folder's owner come in resolved):
 * a program to run, a folder that really lies under the workspace, the sessions' volume (a symbolic link in the
 * workspace that leads out of it is judged by where it leads), a sandbox user to run it as, and a folder that user's
 * commands may have: one they own already, or one no sandbox user owns yet (they take it). The kernel does the rest:
 * a folder a sandbox user owns is theirs alone (docs/adr/0035-a-sandbox-user-per-relay-user.md).
 */

/** The first OS user id a relay user's commands run as: below it are the system's and the relay's own users. */
export const FIRST_SANDBOX_UID = 100_000;

/** Why the command may not start, or undefined when it may. */
export function commandRefusal(input: {
  argv: readonly string[];
  folder: string;
  realFolder: string | undefined;
  realWorkspace: string;
  uid: number;
}): string | undefined {
  if (input.argv.length === 0 || input.argv[0] === '') return 'no command: argv is empty';
  if (!Number.isInteger(input.uid) || input.uid < FIRST_SANDBOX_UID) return `uid ${input.uid} is no sandbox user's (they start at ${FIRST_SANDBOX_UID})`;
  if (!input.folder.startsWith('/')) return `folder '${input.folder}' is not an absolute path`;
  if (input.realFolder === undefined) return `folder '${input.folder}' is not a folder on the runner`;
  if (!isUnder(input.realFolder, input.realWorkspace)) return `folder '${input.folder}' is not under the runner's workspace (${input.realWorkspace})`;
  if (input.realFolder === input.realWorkspace) return `folder '${input.folder}' is the whole workspace: a command runs in a session's own folder below it`;
  return undefined;
}

/**
 * What becomes of the folder before a command of `uid` runs there: `own` (its owner is `uid`), `take` (no sandbox
 * user owns it: it becomes `uid`'s), or why not (another sandbox user owns it).
 */
export function folderClaim(input: { folder: string; owner: number; uid: number }): 'own' | 'take' | { refusal: string } {
  if (input.owner === input.uid) return 'own';
  if (input.owner < FIRST_SANDBOX_UID) return 'take';
  return { refusal: `folder '${input.folder}' belongs to another user's commands` };
}

/** Whether `path` is `root` or lies below it (both real, normalised paths). */
export function isUnder(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}
